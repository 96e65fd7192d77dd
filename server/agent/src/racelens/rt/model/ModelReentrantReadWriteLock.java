package racelens.rt.model;

import java.util.ArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import racelens.rt.Gated;
import racelens.rt.Mon;
import racelens.rt.OwnEffects;
import racelens.rt.Rt;
import racelens.rt.TS;

/**
 * Replaces {@code new ReentrantReadWriteLock(...)}: readers and the writer are model state
 * (re-entrant; a writer may also take the read lock; no upgrade). Controlled threads only.
 */
public class ModelReentrantReadWriteLock extends java.util.concurrent.locks.ReentrantReadWriteLock implements OwnEffects {
    private static final long serialVersionUID = 1L;
    final transient Mon writer = new Mon(this);
    final transient ArrayList<TS> readers = new ArrayList<>();
    private transient int epoch = Rt.epoch;
    private final transient ModelReadLock readLock;
    private final transient ModelWriteLock writeLock;

    public ModelReentrantReadWriteLock() {
        this(false);
    }

    public ModelReentrantReadWriteLock(boolean fair) {
        super(fair);
        readLock = new ModelReadLock(this);
        writeLock = new ModelWriteLock(this);
    }

    void fresh() {
        writer.fresh();
        if (epoch != Rt.epoch) {
            epoch = Rt.epoch;
            readers.clear();
        }
    }

    static TS self() {
        TS s = Rt.me();
        if (s == null) {
            throw new IllegalStateException("racelens: model read-write locks are only usable by controlled threads");
        }
        return s;
    }

    @Override
    public ReentrantReadWriteLock.ReadLock readLock() {
        return readLock;
    }

    @Override
    public ReentrantReadWriteLock.WriteLock writeLock() {
        return writeLock;
    }

    @Override
    public boolean isWriteLocked() {
        Rt.lockRead(this);
        fresh();
        return writer.owner != null;
    }

    @Override
    public int getReadLockCount() {
        Rt.lockRead(this);
        fresh();
        return readers.size();
    }

    boolean canRead(TS s) {
        fresh();
        return writer.owner == null || writer.owner == s;
    }

    boolean canWrite(TS s) {
        fresh();
        if (writer.owner == s) {
            return true;
        }
        return writer.owner == null && readers.isEmpty();
    }

    /** Takes the read or the write lock once it is free for {@code s} (model state only). */
    private void take(TS s, boolean write) {
        if (write) {
            if (writer.owner != s) {
                Rt.lockTaken(this, false);
            }
            writer.owner = s;
            writer.holds++;
        } else {
            Rt.lockTaken(this, true); // readers share it: reads of the lock's variable
            readers.add(s);
        }
        Rt.changed();
    }

    /** {@code lock()} of either side waits at its point while the other side has it. */
    Gated.Gate gate(TS s, int site, boolean write) {
        if (!Rt.callee(site).equals("lock")) {
            return null;
        }
        Models.Until until = new Models.Until(() -> write ? canWrite(s) : canRead(s), this, write ? "waiting to write-lock" : "waiting to read-lock", null);
        return new Gated.Gate(until, this, !write);
    }

    /** {@code lock}, {@code lockInterruptibly} and timed {@code tryLock} of either side. */
    boolean acquire(boolean write, boolean timed, long nanos, boolean interruptible) throws InterruptedException {
        TS s = self();
        String verb = write ? "waiting to write-lock" : "waiting to read-lock";
        if (!Models.until(s, () -> write ? canWrite(s) : canRead(s), this, verb, timed, nanos, interruptible)) {
            return false;
        }
        take(s, write);
        return true;
    }

    void lockUninterruptibly(boolean write) {
        try {
            acquire(write, false, 0, false);
        } catch (InterruptedException e) {
            throw new AssertionError(e); // not interruptible: never thrown
        }
    }

    /** Untimed {@code tryLock}: takes the lock only if it is free now. */
    boolean tryAcquire(boolean write) {
        TS s = self();
        if (!(write ? canWrite(s) : canRead(s))) {
            return false;
        }
        take(s, write);
        return true;
    }

    public static class ModelReadLock extends ReentrantReadWriteLock.ReadLock implements Gated, OwnEffects {
        private static final long serialVersionUID = 1L;
        final ModelReentrantReadWriteLock rw;

        protected ModelReadLock(ModelReentrantReadWriteLock rw) {
            super(rw);
            this.rw = rw;
        }

        @Override
        public Gated.Gate gate(TS s, int site) {
            return rw.gate(s, site, false);
        }

        @Override
        public void lock() {
            rw.lockUninterruptibly(false);
        }

        @Override
        public void lockInterruptibly() throws InterruptedException {
            rw.acquire(false, false, 0, true);
        }

        @Override
        public boolean tryLock() {
            return rw.tryAcquire(false);
        }

        @Override
        public boolean tryLock(long timeout, TimeUnit unit) throws InterruptedException {
            return rw.acquire(false, true, unit.toNanos(timeout), true);
        }

        @Override
        public void unlock() {
            TS s = self();
            rw.fresh();
            if (!rw.readers.remove(s)) {
                throw new IllegalMonitorStateException("attempt to unlock read lock, not locked by current thread");
            }
            Rt.lockReleased(rw);
            Rt.changed();
        }

        @Override
        public Condition newCondition() {
            throw new UnsupportedOperationException();
        }
    }

    public static class ModelWriteLock extends ReentrantReadWriteLock.WriteLock implements Gated, OwnEffects {
        private static final long serialVersionUID = 1L;
        final ModelReentrantReadWriteLock rw;

        protected ModelWriteLock(ModelReentrantReadWriteLock rw) {
            super(rw);
            this.rw = rw;
        }

        @Override
        public Gated.Gate gate(TS s, int site) {
            return rw.gate(s, site, true);
        }

        @Override
        public void lock() {
            rw.lockUninterruptibly(true);
        }

        @Override
        public void lockInterruptibly() throws InterruptedException {
            rw.acquire(true, false, 0, true);
        }

        @Override
        public boolean tryLock() {
            return rw.tryAcquire(true);
        }

        @Override
        public boolean tryLock(long timeout, TimeUnit unit) throws InterruptedException {
            return rw.acquire(true, true, unit.toNanos(timeout), true);
        }

        @Override
        public void unlock() {
            Rt.release(self(), rw.writer);
        }

        @Override
        public Condition newCondition() {
            return new ModelCondition(rw, rw.writer);
        }

        @Override
        public boolean isHeldByCurrentThread() {
            TS s = Rt.me();
            rw.fresh();
            return s != null && rw.writer.owner == s;
        }

        @Override
        public int getHoldCount() {
            TS s = Rt.me();
            rw.fresh();
            return s != null && rw.writer.owner == s ? rw.writer.holds : 0;
        }
    }
}
