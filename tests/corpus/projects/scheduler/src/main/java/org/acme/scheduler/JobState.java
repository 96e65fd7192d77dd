package org.acme.scheduler;

/** The life cycle of a job: PENDING, then RUNNING, then WAITING_RETRY and RUNNING again or one of the terminal states. */
public enum JobState {
    PENDING,
    RUNNING,
    WAITING_RETRY,
    SUCCEEDED,
    FAILED,
    CANCELLED
}
