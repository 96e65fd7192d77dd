package racelens.rt.model;

import java.util.concurrent.TimeUnit;
import racelens.rt.Rt;
import racelens.rt.TS;

/** Replaces {@code new Semaphore(...)}: the permits are the real ones; acquiring blocks in the model. */
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
        for (;;) {
            if (interruptible) {
                Models.checkInterrupt(s);
            }
            if (super.tryAcquire(n)) {
                Rt.changed();
                return true;
            }
            if (s.timedOut && timed) {
                return false;
            }
            if (!Models.until(s, () -> availablePermits() >= n, this, "waiting for permits of", timed, nanos, interruptible)) {
                if (timed) {
                    return false;
                }
            }
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
