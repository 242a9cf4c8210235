package dev.vertxrma.impl.win;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.Info;
import dev.vertxrma.RmaException;
import dev.vertxrma.Win;
import dev.vertxrma.testing.Jobs;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A task queued to a window's single owner that throws something other than an RmaException (a
 * bug) fails its caller's future with INTERN instead of leaving it pending for ever, and the
 * window's owner keeps serving.
 */
class OwnerTaskFailureTest {

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void aTaskThatThrowsFailsItsFuture(Jobs.Mode mode) {
    Jobs.run(mode, 1, (world, args) -> Win.allocate(world, 8, 8, Info.NULL).compose(win -> {
      TargetWindow target = ((WinImpl) win).targetWindow();
      return target.<Void>owned(() -> {
        throw new IllegalStateException("a bug in a queued task");
      }).transform(ar -> {
        assertTrue(ar.failed(), "the task's future did not fail");
        RmaException e = (RmaException) ar.cause();
        assertEquals(ErrorClass.INTERN, e.errorClass(), e.getMessage());
        assertTrue(e.getMessage().contains("a bug in a queued task"), e.getMessage());
        return target.owned(() -> 7);
      }).map(seven -> {
        assertEquals(7, seven, "the owner serves the next task");
        return null;
      }).compose(v -> win.free());
    }));
  }
}
