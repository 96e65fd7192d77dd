package racelens.rt.model;

import java.util.ArrayList;
import java.util.Date;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import racelens.rt.Mon;
import racelens.rt.OwnEffects;
import racelens.rt.Rt;
import racelens.rt.TS;

/** A condition of a model lock: a wait set; which waiter {@code signal} wakes is a scheduling choice. */
public final class ModelCondition implements Condition, OwnEffects {
    final Object lock;
    final Mon mon;
    private final ArrayList<TS> waiters = new ArrayList<>(2);
    private int epoch = Rt.epoch;

    ModelCondition(Object lock, Mon mon) {
        this.lock = lock;
        this.mon = mon;
    }

    private ArrayList<TS> waiters() {
        if (epoch != Rt.epoch) {
            epoch = Rt.epoch;
            waiters.clear();
        }
        return waiters;
    }

    private static TS self() {
        TS s = Rt.me();
        if (s == null) {
            throw new IllegalStateException("racelens: conditions of model locks are only usable by controlled threads");
        }
        return s;
    }

    @Override
    public void await() throws InterruptedException {
        TS s = self();
        Rt.await(s, mon, waiters(), this, false, 0, true);
    }

    @Override
    public void awaitUninterruptibly() {
        TS s = self();
        try {
            Rt.await(s, mon, waiters(), this, false, 0, false);
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
        Rt.await(s, mon, waiters(), this, true, nanos, true);
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
