/**
 * Long runs that check every value: {@link Soak} keeps every kind of RMA traffic going at once
 * over several windows for a given time and replays every rank's choices to check the result.
 */
package dev.vertxrma.samples.stress;
