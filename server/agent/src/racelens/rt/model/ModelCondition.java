package racelens.rt.model;

import java.util.ArrayList;
import java.util.Date;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import racelens.rt.Mon;
import racelens.rt.OwnEffects;
import racelens.rt.Rt;
import racelens.rt.TS;

/**
 * A condition of a model lock: a wait set in arrival order; {@code signal} wakes the
 * longest-waiting thread, as the JDK's {@code AbstractQueuedSynchronizer.ConditionObject}
 * documents (a fair pool built on conditions serves its waiters in order: exploring another
 * order would make failures the JDK cannot have).
 */
public final class ModelCondition implements Condition, OwnEffects {
    final Object lock;
    final Mon mon;
    private final ArrayList<TS> waiters = new ArrayList<>(2);
    private int epoch = Rt.epoch;

    ModelCondition(Object lock, Mon mon) {
        this.lock = lock;
        this.mon = mon;
    }

    /** The lock's queue when it is a fair {@code ReentrantLock}: its waiters take it again in order. */
    private racelens.rt.FairQueue fair() {
        return lock instanceof ModelReentrantLock && ((ModelReentrantLock) lock).isFair() ? (ModelReentrantLock) lock : null;
    }

    private ArrayList<TS> waiters() {
        if (epoch != Rt.epoch) {
            epoch = Rt.epoch;
            waiters.clear();
        }
        return waiters;
    }

    /**
     * The threads waiting on this condition, longest first (not those woken and acquiring the
     * lock again), for the lock's {@code hasWaiters}, {@code getWaitQueueLength} and
     * {@code getWaitingThreads}; the caller must hold the lock ({@link #checkQuery}).
     */
    java.util.List<Thread> waitingThreads() {
        Rt.queuesRead(null);
        return Rt.threadsOf(waiters());
    }

    /**
     * The JDK's checks before a lock answers a question about {@code condition} (its
     * {@code hasWaiters}, {@code getWaitQueueLength}, {@code getWaitingThreads}): not null, a
     * condition of {@code lock} ({@code IllegalArgumentException("not owner")} as the JDK's), and
     * the lock held by the caller ({@code IllegalMonitorStateException}). Returns it as a model
     * condition.
     */
    static ModelCondition checkQuery(java.util.concurrent.locks.Condition condition, Object lock, Mon held) {
        if (condition == null) {
            throw new NullPointerException();
        }
        if (!(condition instanceof ModelCondition)) {
            throw new IllegalArgumentException("not owner"); // as ReentrantLock's, for a condition it did not make
        }
        if (((ModelCondition) condition).lock != lock) {
            throw new IllegalArgumentException("Not owner"); // as AbstractQueuedSynchronizer's, for another lock's
        }
        TS s = self();
        held.fresh();
        if (held.owner != s) {
            throw new IllegalMonitorStateException();
        }
        return (ModelCondition) condition;
    }

    private static TS self() {
        TS s = Rt.me();
        if (s == null) {
            throw new IllegalStateException("racelens: conditions of model locks are only usable by controlled threads");
        }
        return s;
    }

    /** The JDK's {@code toString} of a condition object: class and identity (the model's). */
    @Override
    public String toString() {
        return "java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject@" + Integer.toHexString(hashCode());
    }

    @Override
    public void await() throws InterruptedException {
        TS s = self();
        Rt.await(s, mon, waiters(), this, false, 0, true, fair());
    }

    @Override
    public void awaitUninterruptibly() {
        TS s = self();
        try {
            Rt.await(s, mon, waiters(), this, false, 0, false, fair());
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    @Override
    public long awaitNanos(long nanos) throws InterruptedException {
        TS s = self();
        if (nanos <= 0) {
            mon.fresh();
            if (mon.owner != s) {
                throw new IllegalMonitorStateException();
            }
            if (s.interrupted) {
                s.interrupted = false;
                throw new InterruptedException();
            }
            return nanos;
        }
        long start = Rt.clock();
        Rt.await(s, mon, waiters(), this, true, nanos, true, fair());
        return nanos - (Rt.clock() - start) - (s.timedOut ? 1 : 0);
    }

    @Override
    public boolean await(long time, TimeUnit unit) throws InterruptedException {
        return awaitNanos(unit.toNanos(time)) > 0;
    }

    @Override
    public boolean awaitUntil(Date deadline) throws InterruptedException {
        long ms = deadline.getTime() - Rt.currentTimeMillis();
        return awaitNanos(Math.max(0, ms) * 1_000_000L) > 0;
    }

    @Override
    public void signal() {
        TS s = self();
        mon.fresh();
        if (mon.owner != s) {
            throw new IllegalMonitorStateException();
        }
        Rt.signal(s, waiters(), this);
    }

    @Override
    public void signalAll() {
        TS s = self();
        mon.fresh();
        if (mon.owner != s) {
            throw new IllegalMonitorStateException();
        }
        Rt.signalAll(s, waiters(), this);
    }
}
