package racelens.rt.model;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import racelens.rt.Gated;
import racelens.rt.Mon;
import racelens.rt.OwnEffects;
import racelens.rt.Rt;
import racelens.rt.TS;

/**
 * Replaces {@code new ReentrantLock(...)} in application code: ownership and re-entrancy are
 * model state; contention disables the thread instead of parking it in the JDK. Uncontrolled
 * threads (outside executions) use the real lock.
 */
public class ModelReentrantLock extends java.util.concurrent.locks.ReentrantLock implements Gated, OwnEffects {
    private static final long serialVersionUID = 1L;
    final transient Mon mon = new Mon(this);

    public ModelReentrantLock() {
        super();
    }

    public ModelReentrantLock(boolean fair) {
        super(fair);
    }

    @Override
    public void lock() {
        TS s = Rt.me();
        if (s == null) {
            super.lock();
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
        return Rt.callee(site).equals("lock") ? new Gate(mon, this, false) : null;
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

    @Override
    public String toString() {
        mon.fresh();
        return getClass().getSuperclass().getName() + "@" + Integer.toHexString(hashCode())
                + (mon.owner == null ? "[Unlocked]" : "[Locked by thread " + mon.owner.thread.getName() + "]");
    }
}
