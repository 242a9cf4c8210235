/**
 * Windows behind a Vert.x service: {@link CounterService} embeds a world in a JVM and serves a
 * ticket counter and a histogram over HTTP from its windows, with the windows' metrics for
 * Prometheus ({@link ServiceMetrics}) when asked.
 */
package dev.vertxrma.samples.services;
