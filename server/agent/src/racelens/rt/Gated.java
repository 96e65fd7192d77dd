package racelens.rt;

/**
 * A model whose operations can keep a thread waiting at the call's scheduling point, disabled and
 * without taking a step, until they can proceed (a lock held by another thread): then the step
 * is the operation itself, as for a monitor. An operation that cannot wait there blocks inside
 * the model instead (an attempt step, then the completion step).
 */
public interface Gated {
    /**
     * What the call at site {@code site} on this object, by the running thread {@code s}, waits
     * for at its point; null when it does not wait there (another method, a timed or
     * interruptible one).
     */
    Gate gate(TS s, int site);

    /** The condition an operation waits for at its point, and the lock it then takes. */
    final class Gate {
        final Blocker until;
        final Object lock;
        final boolean shared;

        public Gate(Blocker until, Object lock, boolean shared) {
            this.until = until;
            this.lock = lock;
            this.shared = shared;
        }
    }
}
