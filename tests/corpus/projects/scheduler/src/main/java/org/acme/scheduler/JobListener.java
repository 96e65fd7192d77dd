package org.acme.scheduler;

/** Told about the outcome of every attempt. Called by the worker threads, with no lock held. */
public interface JobListener {

    default void onSuccess(Job job, long runMillis) {
    }

    default void onRetry(Job job, String error, long delayMillis) {
    }

    default void onFailure(Job job, String error) {
    }
}
