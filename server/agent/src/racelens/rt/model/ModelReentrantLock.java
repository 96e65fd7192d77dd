package racelens.rt.model;

import java.util.Collection;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import racelens.rt.Gated;
import racelens.rt.Mon;
import racelens.rt.OwnEffects;
import racelens.rt.Rt;
import racelens.rt.TS;

/**
 * Replaces {@code new ReentrantLock(...)} in application code, and is the superclass of the
 * application's subclasses: ownership and re-entrancy are model state; contention disables the
 * thread instead of parking it in the JDK. Every query of the JDK's API answers from the model:
 * the owner and hold count, the threads queued for the lock (waiting at a {@code lock()},
 * inside {@code lockInterruptibly} or a timed {@code tryLock}, or acquiring it again after a
 * condition's {@code await}), the waiters of its conditions; the JDK's final
 * {@code hasQueuedThreads}, {@code hasQueuedThread} and {@code getQueueLength} through
 * {@link FinalCalls}. A fair lock grants itself to the longest-waiting thread, and a newcomer
 * queues behind the waiters, as the JDK's; an untimed {@code tryLock} barges on either. Uncontrolled
 * threads (outside executions) use the real lock.
 */
public class ModelReentrantLock extends java.util.concurrent.locks.ReentrantLock implements Gated, OwnEffects, racelens.rt.FairQueue {
    private static final long serialVersionUID = 1L;
    final transient Mon mon = new Mon(this);

    public ModelReentrantLock() {
        super();
    }

    public ModelReentrantLock(boolean fair) {
        super(fair);
    }

    // =====================================================================================
    // Fair locks: the JDK grants the lock to the longest-waiting thread (and a newcomer queues
    // behind the waiters); an unfair one lets any thread take it once it is free.

    private transient java.util.LinkedHashSet<TS> fairQueue;
    private transient int fairEpoch = -1;

    /** The threads queued for this fair lock, in the order they found it taken. */
    private java.util.LinkedHashSet<TS> fairQueue() {
        if (fairEpoch != Rt.epoch || fairQueue == null) {
            fairEpoch = Rt.epoch;
            fairQueue = new java.util.LinkedHashSet<>();
        }
        return fairQueue;
    }

    /** Whether {@code s} may take this fair lock now: it is free (or {@code s}'s), and nobody queued before {@code s}. */
    private boolean mayTakeFair(TS s) {
        mon.fresh();
        if (mon.owner == s) {
            return true;
        }
        if (mon.owner != null) {
            return false;
        }
        java.util.Iterator<TS> q = fairQueue().iterator();
        return !q.hasNext() || q.next() == s;
    }

    // A waiter of one of this fair lock's conditions, once signalled, queues behind the threads
    // waiting for the lock, as the JDK moves it to the lock's queue (FairQueue).

    @Override
    public void queue(TS t) {
        fairQueue().add(t);
        Rt.changed();
    }

    @Override
    public boolean mayTake(TS t) {
        return mayTakeFair(t);
    }

    @Override
    public void took(TS t) {
        if (fairQueue().remove(t)) {
            Rt.changed(); // the next one may be first now
        }
    }

    /** A thread waiting for this fair lock; it joins the queue when it first finds it cannot take it. */
    final class FairWait extends racelens.rt.Blocker.Cond {
        final TS ts;

        FairWait(TS ts) {
            this.ts = ts;
        }

        @Override
        protected boolean cond() {
            return mayTakeFair(ts);
        }

        @Override
        public boolean ready(TS t) {
            boolean r = super.ready(t);
            if (!r) {
                fairQueue().add(ts);
            }
            return r;
        }

        @Override
        public String describe(TS t) {
            return mon.describe(t);
        }
    }

    /** {@code lock}, {@code lockInterruptibly} and the timed {@code tryLock} of a fair lock; false on timeout. */
    private boolean acquireFair(TS s, boolean interruptible, boolean timed, long nanos) throws InterruptedException {
        if (interruptible) {
            Models.checkInterrupt(s);
        }
        Rt.queuesRead(null); // whether it may go ahead depends on who is queued
        boolean taken = false;
        try {
            FairWait wait = new FairWait(s);
            while (!mayTakeFair(s)) {
                if (timed && (nanos <= 0 || s.timedOut)) {
                    return false;
                }
                Rt.block(s, wait, timed, nanos, interruptible);
                if (interruptible) {
                    Models.checkInterrupt(s);
                }
                if (timed && s.timedOut && !mayTakeFair(s)) {
                    return false;
                }
            }
            take(s);
            taken = true;
            return true;
        } finally {
            if (fairQueue().remove(s) && !taken) {
                Rt.changed(); // gave up: the next one may be first now
            }
        }
    }

    @Override
    public void lock() {
        TS s = Rt.me();
        if (s == null) {
            super.lock();
            return;
        }
        if (isFair()) {
            try {
                acquireFair(s, false, false, 0);
            } catch (InterruptedException e) {
                throw new AssertionError(e); // not interruptible: never thrown
            }
            return;
        }
        Rt.acquire(s, mon);
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        TS s = Rt.me();
        if (s == null) {
            super.lockInterruptibly();
            return;
        }
        if (isFair()) {
            acquireFair(s, true, false, 0);
            return;
        }
        Models.checkInterrupt(s);
        mon.fresh();
        while (mon.owner != null && mon.owner != s) {
            Rt.block(s, mon, false, 0, true);
            Models.checkInterrupt(s);
        }
        take(s);
    }

    private void take(TS s) {
        if (mon.owner != s) {
            Rt.lockTaken(this, false);
        }
        mon.owner = s;
        mon.holds++;
        Rt.changed();
    }

    /** {@code lock()} waits at its point while another thread holds the lock (as a monitor does). */
    @Override
    public Gate gate(TS s, int site) {
        if (!Rt.callee(site).equals("lock")) {
            return null;
        }
        return new Gate(isFair() ? new FairWait(s) : mon, this, false);
    }

    @Override
    public boolean tryLock() {
        TS s = Rt.me();
        if (s == null) {
            return super.tryLock();
        }
        mon.fresh();
        if (mon.owner == null || mon.owner == s) {
            take(s);
            return true;
        }
        return false;
    }

    @Override
    public boolean tryLock(long timeout, TimeUnit unit) throws InterruptedException {
        TS s = Rt.me();
        if (s == null) {
            return super.tryLock(timeout, unit);
        }
        if (isFair()) {
            return acquireFair(s, true, true, unit.toNanos(timeout));
        }
        Models.checkInterrupt(s);
        mon.fresh();
        if (mon.owner != null && mon.owner != s) {
            long nanos = unit.toNanos(timeout);
            if (nanos <= 0) {
                return false;
            }
            Rt.block(s, mon, true, nanos, true);
            Models.checkInterrupt(s);
            if (mon.owner != null && mon.owner != s) {
                return false;
            }
        }
        take(s);
        return true;
    }

    @Override
    public void unlock() {
        TS s = Rt.me();
        if (s == null) {
            super.unlock();
            return;
        }
        Rt.release(s, mon);
    }

    @Override
    public Condition newCondition() {
        return new ModelCondition(this, mon);
    }

    @Override
    public boolean isLocked() {
        Rt.lockRead(this);
        mon.fresh();
        return mon.owner != null || super.isLocked();
    }

    @Override
    public boolean isHeldByCurrentThread() {
        TS s = Rt.me();
        if (s == null) {
            return super.isHeldByCurrentThread();
        }
        mon.fresh();
        return mon.owner == s;
    }

    @Override
    public int getHoldCount() {
        TS s = Rt.me();
        if (s == null) {
            return super.getHoldCount();
        }
        mon.fresh();
        return mon.owner == s ? mon.holds : 0;
    }

    /** The JDK's {@code getOwner} (protected: subclasses ask it). */
    @Override
    protected Thread getOwner() {
        if (Rt.me() == null) {
            return super.getOwner();
        }
        Rt.lockRead(this);
        mon.fresh();
        return mon.owner == null ? null : mon.owner.thread;
    }

    /** The threads waiting to acquire this lock, in thread order (the JDK promises none). */
    @Override
    protected Collection<Thread> getQueuedThreads() {
        if (Rt.me() == null) {
            return super.getQueuedThreads();
        }
        return queued();
    }

    /** For {@link FinalCalls}: the controlled threads waiting to acquire this lock (a fair lock's latest first, as the JDK's). */
    java.util.List<Thread> queued() {
        Rt.queuesRead(this);
        mon.fresh();
        java.util.List<Thread> out = new java.util.ArrayList<>();
        if (isFair()) {
            for (TS t : fairQueue()) {
                out.add(0, t.thread); // the latest first, as the JDK walks its queue from the tail
            }
        }
        for (Thread t : Rt.queuedOn(mon)) {
            if (!out.contains(t)) {
                out.add(t);
            }
        }
        return out;
    }

    @Override
    public boolean hasWaiters(Condition condition) {
        if (Rt.me() == null) {
            return super.hasWaiters(condition);
        }
        return !ModelCondition.checkQuery(condition, this, mon).waitingThreads().isEmpty();
    }

    @Override
    public int getWaitQueueLength(Condition condition) {
        if (Rt.me() == null) {
            return super.getWaitQueueLength(condition);
        }
        return ModelCondition.checkQuery(condition, this, mon).waitingThreads().size();
    }

    /** The threads waiting on {@code condition}, longest first (protected: subclasses ask it, to interrupt them). */
    @Override
    protected Collection<Thread> getWaitingThreads(Condition condition) {
        if (Rt.me() == null) {
            return super.getWaitingThreads(condition);
        }
        return ModelCondition.checkQuery(condition, this, mon).waitingThreads();
    }

    @Override
    public String toString() {
        if (Rt.me() == null) {
            return Models.asJdk(super.toString(), this, java.util.concurrent.locks.ReentrantLock.class);
        }
        Rt.lockRead(this);
        mon.fresh();
        return Models.identity(this, java.util.concurrent.locks.ReentrantLock.class)
                + (mon.owner == null ? "[Unlocked]" : "[Locked by thread " + mon.owner.thread.getName() + "]");
    }
}
