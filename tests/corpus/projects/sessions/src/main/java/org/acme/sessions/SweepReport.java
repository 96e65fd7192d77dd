package org.acme.sessions;

/**
 * What one sweep of the reaper did. Filled in by the reaper thread while it sweeps, then
 * published through the reaper's volatile {@code lastReport}; never written after that.
 */
public final class SweepReport {

    final long startedAt;
    final long gapMillis;
    int scanned;
    int expired;
    long finishedAt;

    SweepReport(long startedAt, long gapMillis) {
        this.startedAt = startedAt;
        this.gapMillis = gapMillis;
    }

    public long durationMillis() {
        return finishedAt - startedAt;
    }

    @Override
    public String toString() {
        return "sweep at " + startedAt + " (" + gapMillis + "ms after the previous): " + expired + "/" + scanned
                + " expired in " + durationMillis() + "ms";
    }
}
