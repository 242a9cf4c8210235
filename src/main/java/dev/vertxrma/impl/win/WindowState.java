package dev.vertxrma.impl.win;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.RmaException;

/**
 * What every part of one rank's window reads: its id and rank, its name (for messages), whether
 * it is being freed, and every rank's size and displacement unit as agreed at creation. Used on
 * the rank's context.
 */
final class WindowState {

  final int id;
  final int rank;
  /** The number of ranks of the window's communicator. */
  final int size;
  private volatile String name;
  private boolean freed;
  private boolean freeing;
  private long[] sizes;
  private int[] units;

  WindowState(int id, int rank, int size) {
    this.id = id;
    this.rank = rank;
    this.size = size;
    this.name = "win" + id;
  }

  String name() {
    return name;
  }

  void setName(String name) {
    this.name = name == null ? "" : name;
  }

  /** WIN if the window was freed or is being freed. */
  void checkLive(String call) {
    if (freed || freeing) {
      throw RmaException.of(ErrorClass.WIN, "%s on window %s at rank %d after free", call, name, rank);
    }
  }

  /** RANK unless {@code r} is a rank of the window's communicator. */
  void checkRank(int r, String call) {
    if (r < 0 || r >= size) {
      throw RmaException.of(ErrorClass.RANK, "%s: target rank %d is not in [0, %d)", call, r, size);
    }
  }

  /** {@code free} was called: no further call is taken. */
  void freeing() {
    freeing = true;
  }

  /** The window left the registry; true if it had not already. */
  boolean markFreed() {
    boolean first = !freed;
    freed = true;
    return first;
  }

  /** Every rank's window size and displacement unit, agreed at creation. */
  void setAttributes(long[] sizes, int[] units) {
    this.sizes = sizes;
    this.units = units;
  }

  /** Rank {@code r}'s window size in bytes. */
  long size(int r) {
    return sizes[r];
  }

  /** Rank {@code r}'s displacement unit. */
  int unit(int r) {
    return units[r];
  }

  /** Every rank's size (not to be changed). */
  long[] sizes() {
    return sizes;
  }
}
