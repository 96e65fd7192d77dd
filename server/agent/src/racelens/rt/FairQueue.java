package racelens.rt;

/**
 * The queue of a fair model lock, for a thread that waited on one of its conditions: as the
 * JDK's {@code AbstractQueuedSynchronizer} moves a signalled (or timed-out, or interrupted)
 * waiter to the tail of the lock's queue, the waiter queues behind the threads already waiting
 * for the lock, and takes it again in that order.
 */
public interface FairQueue {
    /** {@code t} left the condition's wait set: it queues for the lock. */
    void queue(TS t);

    /** Whether {@code t} may take the lock now: it is free (or {@code t}'s), and {@code t} is first. */
    boolean mayTake(TS t);

    /** {@code t} took the lock again: it leaves the queue. */
    void took(TS t);
}
