package dev.vertxrma.impl.coll;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.internal.ContextInternal;

/**
 * Ids that the ranks of a communicator agree on (MPICH's way with context ids): every member
 * proposes the next id it has free, the largest proposal wins, and every member then takes it,
 * so the id is free at every member. One rank's agreements run one at a time, in call order: an
 * agreement's proposal is made only once the rank's earlier agreements have ended, so two
 * agreements in flight at one rank (on two communicators, or back to back on one) can never
 * settle on the same id. Used on the rank's context only.
 */
public final class AgreedIds {

  private final ContextInternal context;
  private final int step;
  private final int limit;
  private final String what;
  private int next;
  private Future<Void> busy;

  /**
   * @param first the first id handed out
   * @param step ids taken by one agreement ({@code id .. id + step - 1})
   * @param limit the first id that may not be handed out
   * @param what what the ids name, for the error when they run out
   */
  public AgreedIds(ContextInternal context, int first, int step, int limit, String what) {
    this.context = context;
    this.next = first;
    this.step = step;
    this.limit = limit;
    this.what = what;
    this.busy = context.succeededFuture();
  }

  /** One agreement of this rank: its proposal, then {@link #claim} of the agreed id or {@link #end()}. */
  public final class Turn {
    private final Future<Void> previous;
    private final Promise<Void> done;

    private Turn(Future<Void> previous, Promise<Void> done) {
      this.previous = previous;
      this.done = done;
    }

    /** This rank's proposal, once its earlier agreements have ended. */
    public Future<Integer> proposal() {
      return previous.map(v -> next);
    }

    /** Takes the agreed {@code id} (the largest proposal): later proposals are above it; ends the turn. */
    public void claim(int id) {
      next = Math.max(next, id + step);
      done.tryComplete();
    }

    /** Ends the turn without an id (the agreement failed). */
    public void end() {
      done.tryComplete();
    }
  }

  /** Starts an agreement: its proposal waits for this rank's earlier ones. */
  public Turn turn() {
    Promise<Void> done = context.promise();
    Turn t = new Turn(busy, done);
    busy = done.future();
    return t;
  }

  /**
   * Checks an agreed id against the limit.
   *
   * @return {@code null} if it may be used, else why not
   */
  public String exhausted(int id) {
    return id + step > limit ? "no " + what + " left (the agreed id " + id + " would pass " + limit + ")" : null;
  }
}
