package org.acme.scheduler;

import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;

/**
 * One unit of work. Its state is guarded by its monitor; the outcome future is completed
 * after the monitor is released, so that callbacks of the caller never run under it.
 */
public final class Job {

    /** The failure a job's outcome completes with when it has failed for good. */
    public static final class FailedException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        FailedException(String jobId, String error) {
            super(jobId + " failed: " + error);
        }
    }

    private final String id;
    private final String name;
    private final String dedupeKey;
    private final Callable<String> task;
    private final int maxAttempts;
    private final long submittedAt;
    private final CompletableFuture<String> outcome = new CompletableFuture<>();

    /** Set once by the scheduler before the job is handed to the queue; only read afterwards. */
    private String traceId;

    // guarded by this
    private JobState state = JobState.PENDING;
    private int attempts;
    private long startedAt;
    private long finishedAt;
    private String lastError;

    Job(String id, String name, String dedupeKey, Callable<String> task, int maxAttempts, long submittedAt) {
        this.id = id;
        this.name = name;
        this.dedupeKey = dedupeKey;
        this.task = task;
        this.maxAttempts = maxAttempts;
        this.submittedAt = submittedAt;
    }

    public String id() {
        return id;
    }

    public String name() {
        return name;
    }

    String dedupeKey() {
        return dedupeKey;
    }

    Callable<String> task() {
        return task;
    }

    public CompletableFuture<String> outcome() {
        return outcome;
    }

    void setTraceId(String traceId) {
        this.traceId = traceId;
    }

    public String traceId() {
        return traceId;
    }

    /** Claims the job for the calling worker; false when it was cancelled or is not runnable. */
    synchronized boolean tryStart(long now) {
        if (state != JobState.PENDING && state != JobState.WAITING_RETRY) {
            return false;
        }
        state = JobState.RUNNING;
        attempts++;
        startedAt = now;
        return true;
    }

    void succeed(String result, long now) {
        synchronized (this) {
            state = JobState.SUCCEEDED;
            finishedAt = now;
            lastError = null;
        }
        outcome.complete(result);
    }

    /**
     * Records a failed attempt. The job waits for a retry when {@code retryAllowed}, and has
     * failed for good otherwise; returns whether it will be retried.
     */
    boolean fail(String error, long now, boolean retryAllowed) {
        synchronized (this) {
            lastError = error;
            if (retryAllowed) {
                state = JobState.WAITING_RETRY;
                return true;
            }
            state = JobState.FAILED;
            finishedAt = now;
        }
        outcome.completeExceptionally(new FailedException(id, error));
        return false;
    }

    /** Gives up a job that waits for a retry (its retry could not be queued); false if it was cancelled meanwhile. */
    boolean abandon(String reason, long now) {
        synchronized (this) {
            if (state != JobState.WAITING_RETRY) {
                return false;
            }
            state = JobState.FAILED;
            lastError = reason;
            finishedAt = now;
        }
        outcome.completeExceptionally(new FailedException(id, reason));
        return true;
    }

    /** Cancels a job that is not running; false when it runs or has finished. */
    boolean cancel(long now) {
        synchronized (this) {
            if (state != JobState.PENDING && state != JobState.WAITING_RETRY) {
                return false;
            }
            state = JobState.CANCELLED;
            finishedAt = now;
        }
        outcome.cancel(false);
        return true;
    }

    public synchronized JobState state() {
        return state;
    }

    public synchronized int attempts() {
        return attempts;
    }

    /** How many attempts are left; stable while the calling worker runs the job. */
    synchronized int attemptsLeft() {
        return maxAttempts - attempts;
    }

    public synchronized String describe() {
        return id + " " + name + " " + state + " attempts=" + attempts + "/" + maxAttempts
                + " submitted=" + submittedAt + " started=" + startedAt + " finished=" + finishedAt + (lastError == null ? "" : " error=" + lastError);
    }
}
