package racelens.rt.model;

import java.util.Collection;
import java.util.List;
import java.util.concurrent.TimeUnit;
import racelens.rt.Rt;
import racelens.rt.TS;

/**
 * Replaces {@code new Semaphore(...)}: the permits are the real ones (so {@code availablePermits},
 * {@code drainPermits}, {@code reducePermits} and {@code toString} are the JDK's); acquiring
 * blocks in the model, and the queue queries ({@code getQueuedThreads}, and the JDK's final
 * {@code hasQueuedThreads} and {@code getQueueLength} through {@link FinalCalls}) list the threads
 * waiting in it.
 */
public class ModelSemaphore extends java.util.concurrent.Semaphore {
    private static final long serialVersionUID = 1L;

    public ModelSemaphore(int permits) {
        super(permits);
    }

    public ModelSemaphore(int permits, boolean fair) {
        super(permits, fair);
    }

    private boolean acquire(int n, boolean timed, long nanos, boolean interruptible) throws InterruptedException {
        if (n < 0) {
            throw new IllegalArgumentException();
        }
        TS s = Rt.me();
        if (s == null) {
            if (timed) {
                return super.tryAcquire(n, nanos, TimeUnit.NANOSECONDS);
            }
            super.acquire(n);
            return true;
        }
        if (isFair()) {
            Rt.queuesRead(null); // a fair semaphore serves who came first
        }
        boolean acquired = false;
        try {
            for (;;) {
                if (interruptible) {
                    Models.checkInterrupt(s);
                }
                if (first(s) && super.tryAcquire(n)) {
                    acquired = true;
                    Rt.changed();
                    return true;
                }
                if (s.timedOut && timed) {
                    return false;
                }
                if (!Models.until(s, new PermitWait(s, n), timed, nanos, interruptible)) {
                    if (timed) {
                        return false;
                    }
                }
            }
        } finally {
            if (queue().remove(s) && !acquired) {
                Rt.changed(); // gave up: the next one may be first now
            }
        }
    }

    // The threads waiting for permits, in the order they came: a fair semaphore serves the first
    // of them (the JDK's hasQueuedPredecessors); an unfair one lets any of them, or a newcomer, go.

    private transient java.util.LinkedHashSet<TS> queue;
    private transient int epoch = -1;

    private java.util.LinkedHashSet<TS> queue() {
        if (epoch != Rt.epoch || queue == null) {
            epoch = Rt.epoch;
            queue = new java.util.LinkedHashSet<>();
        }
        return queue;
    }

    /** Whether {@code s} may try for permits: always on an unfair semaphore; on a fair one when nobody waits before it. */
    private boolean first(TS s) {
        if (!isFair()) {
            return true;
        }
        java.util.Iterator<TS> q = queue().iterator();
        return !q.hasNext() || q.next() == s;
    }

    /** A thread waiting for {@code n} permits; it joins the queue when it first finds it cannot have them. */
    final class PermitWait extends Models.Until {
        final TS ts;

        PermitWait(TS s, int n) {
            super(() -> first(s) && availablePermits() >= n, ModelSemaphore.this, "waiting for permits of", null);
            this.ts = s;
        }

        @Override
        public boolean ready(TS t) {
            boolean r = super.ready(t);
            if (!r) {
                queue().add(ts);
            }
            return r;
        }
    }

    @Override
    public void acquire() throws InterruptedException {
        acquire(1, false, 0, true);
    }

    @Override
    public void acquire(int permits) throws InterruptedException {
        acquire(permits, false, 0, true);
    }

    @Override
    public void acquireUninterruptibly() {
        acquireUninterruptibly(1);
    }

    @Override
    public void acquireUninterruptibly(int permits) {
        try {
            acquire(permits, false, 0, false);
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    @Override
    public boolean tryAcquire(long timeout, TimeUnit unit) throws InterruptedException {
        return acquire(1, true, unit.toNanos(timeout), true);
    }

    @Override
    public boolean tryAcquire(int permits, long timeout, TimeUnit unit) throws InterruptedException {
        return acquire(permits, true, unit.toNanos(timeout), true);
    }

    /** For {@link FinalCalls}: the controlled threads waiting for permits, the latest first (as the JDK's). */
    List<Thread> queued() {
        Rt.queuesRead(null);
        List<Thread> out = new java.util.ArrayList<>();
        for (TS t : queue()) {
            out.add(0, t.thread); // the latest first, as the JDK walks its queue from the tail
        }
        return out;
    }

    @Override
    protected Collection<Thread> getQueuedThreads() {
        return Rt.me() == null ? super.getQueuedThreads() : queued();
    }

    @Override
    protected void reducePermits(int reduction) {
        super.reducePermits(reduction);
        Rt.changed();
    }

    @Override
    public String toString() {
        return Models.asJdk(super.toString(), this, java.util.concurrent.Semaphore.class);
    }

    @Override
    public void release() {
        super.release();
        Rt.changed();
    }

    @Override
    public void release(int permits) {
        super.release(permits);
        Rt.changed();
    }
}
