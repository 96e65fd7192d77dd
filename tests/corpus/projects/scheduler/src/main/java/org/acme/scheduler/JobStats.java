package org.acme.scheduler;

/** Counters of the scheduler, updated by the workers; every field is guarded by the monitor. */
public final class JobStats {

    /** A consistent copy of the counters. */
    public record Snapshot(long submitted, long succeeded, long failed, long retried, long cancelled, long totalRunMillis, long maxRunMillis) {

        public double meanRunMillis() {
            long runs = succeeded + failed + retried;
            return runs == 0 ? 0.0 : (double) totalRunMillis / runs;
        }
    }

    private long submitted;
    private long succeeded;
    private long failed;
    private long retried;
    private long cancelled;
    private long totalRunMillis;
    private long maxRunMillis;

    synchronized void recordSubmitted() {
        submitted++;
    }

    synchronized void recordSuccess(long runMillis) {
        succeeded++;
        recordRun(runMillis);
    }

    synchronized void recordFailure(long runMillis, boolean willRetry) {
        if (willRetry) {
            retried++;
        } else {
            failed++;
        }
        recordRun(runMillis);
    }

    synchronized void recordCancelled() {
        cancelled++;
    }

    /** Called with the monitor held. */
    private void recordRun(long runMillis) {
        totalRunMillis += runMillis;
        maxRunMillis = Math.max(maxRunMillis, runMillis);
    }

    public synchronized Snapshot snapshot() {
        return new Snapshot(submitted, succeeded, failed, retried, cancelled, totalRunMillis, maxRunMillis);
    }
}
