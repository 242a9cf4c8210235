package dev.vertxrma.impl.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import dev.vertxrma.RankProgram;
import dev.vertxrma.WorldProgram;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The samples by name: every program among the compiled samples sits in one kind's package, its
 * name is unique across the kinds and maps to its class and back, {@code rmarun} lists exactly
 * those, and the names are the ones the samples have always had (docs, tests and scripts use them).
 */
class SampleCatalogTest {

  /** Every sample's name, as the docs and {@code bin/rmarun} users know them; grouping them by kind changed none. */
  private static final List<String> NAMES = List.of("cas-mutex", "counter", "counter-service", "double-buffer",
      "double-buffer-rx", "double-buffer-vt", "exchange", "fence-get", "fence-put", "linked-list", "linked-list-rx",
      "linked-list-vt", "mcs-mutex", "peterson", "pscw-get", "pscw-put", "request-pipeline", "resilient-counter", "resilient-heat", "semaphore",
      "shared-sync", "soak", "twisted");

  private final ClassLoader loader = getClass().getClassLoader();

  /** The programs among the compiled classes of {@code dev.vertxrma.samples..}, by sample name. */
  private static Map<String, List<String>> programsByName() {
    Map<String, List<String>> byName = new TreeMap<>();
    for (JavaClass jc : new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importPackages(SampleCatalog.ROOT)) {
      Class<?> c = jc.reflect();
      int m = c.getModifiers();
      boolean program = (RankProgram.class.isAssignableFrom(c) || WorldProgram.class.isAssignableFrom(c))
          && Modifier.isPublic(m) && !Modifier.isAbstract(m) && !c.isInterface() && !c.isMemberClass();
      if (program) {
        byName.computeIfAbsent(SampleCatalog.sampleName(c.getSimpleName()), k -> new ArrayList<>()).add(c.getName());
      }
    }
    return byName;
  }

  @Test
  void everySampleProgramIsOfOneKindAndListedOnceUnderItsOldName() throws Exception {
    Map<String, List<String>> byName = programsByName();
    for (Map.Entry<String, List<String>> e : byName.entrySet()) {
      assertEquals(1, e.getValue().size(), "two samples named " + e.getKey() + ": " + e.getValue());
      String name = e.getValue().get(0);
      String pkg = name.substring(0, name.lastIndexOf('.'));
      assertTrue(SampleCatalog.KINDS.stream().anyMatch(k -> pkg.equals(SampleCatalog.ROOT + "." + k)),
          name + " is a program outside the kinds' packages " + SampleCatalog.KINDS);
      assertEquals(name, SampleCatalog.sampleClass(e.getKey(), loader), "name and class map both ways");
      assertTrue(Modifier.isPublic(Class.forName(name).getConstructor().getModifiers()), name);
    }
    assertEquals(NAMES, List.copyOf(byName.keySet()), "the sample names");
    assertEquals(NAMES, SampleCatalog.samples(loader), "what rmarun lists");
  }

  @Test
  void eachKindHoldsASample() {
    for (String kind : SampleCatalog.KINDS) {
      assertTrue(programsByName().values().stream().anyMatch(l -> l.get(0).startsWith(SampleCatalog.ROOT + "." + kind
          + ".")), "no sample of kind " + kind);
    }
  }

  @Test
  void namesOfNoSampleResolveToNothing() {
    assertNull(SampleCatalog.sampleClass("twisterd", loader));
    assertNull(SampleCatalog.sampleClass("rank-checks", loader), "the shared pieces are of no kind");
    assertEquals("dev.vertxrma.samples.styles.DoubleBufferRx", SampleCatalog.sampleClass("double-buffer-rx", loader));
    assertEquals("DoubleBufferRx", SampleCatalog.simpleName("double-buffer-rx"));
    assertEquals("double-buffer-rx", SampleCatalog.sampleName("DoubleBufferRx"));
  }
}
