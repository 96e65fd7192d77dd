package racelens.rt.model;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
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
 * Every query of the JDK's API answers from the model: read and write holds (per thread and in
 * all), the owner, the threads queued to read or to write (waiting at a {@code lock()}, inside
 * an interruptible or timed acquisition, or acquiring the write lock again after a condition's
 * {@code await}), the waiters of the write lock's conditions, {@code toString} of the lock and
 * of both views; the JDK's final {@code hasQueuedThreads}, {@code hasQueuedThread} and
 * {@code getQueueLength} through {@link FinalCalls}.
 */
public class ModelReentrantReadWriteLock extends java.util.concurrent.locks.ReentrantReadWriteLock implements OwnEffects {
    private static final long serialVersionUID = 1L;
    final transient Mon writer = new Mon(this);
    final transient ArrayList<TS> readers = new ArrayList<>();
    /** The threads queued for the lock in the order they came (the JDK's queue), each with whether it writes. */
    final transient java.util.LinkedHashMap<TS, Boolean> queue = new java.util.LinkedHashMap<>();
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
            queue.clear();
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

    /**
     * Whether {@code s} may take the read lock now. Without {@code queued} (an untimed
     * {@code tryLock}, which barges as the JDK's), whenever no other thread writes; with it, as
     * the JDK's {@code readerShouldBlock}: a new reader also waits behind a queued writer at the
     * head of the queue (fair: behind anyone queued before it), unless it already holds a read
     * or the write lock.
     */
    boolean canRead(TS s, boolean queued) {
        fresh();
        if (writer.owner != null && writer.owner != s) {
            return false;
        }
        if (!queued || writer.owner == s || readers.contains(s)) {
            return true;
        }
        java.util.Map.Entry<TS, Boolean> first = firstWaiting();
        return first == null || first.getKey() == s || !isFair() && !first.getValue();
    }

    /** Whether {@code s} may take the write lock now; with {@code queued} a fair lock also waits for those queued before it. */
    boolean canWrite(TS s, boolean queued) {
        fresh();
        if (writer.owner == s) {
            return true;
        }
        if (writer.owner != null || !readers.isEmpty()) {
            return false;
        }
        if (!queued || !isFair()) {
            return true;
        }
        java.util.Map.Entry<TS, Boolean> first = firstWaiting();
        return first == null || first.getKey() == s;
    }

    /** The thread longest queued for this lock (the head of the JDK's queue) and whether it writes, or null. */
    private java.util.Map.Entry<TS, Boolean> firstWaiting() {
        fresh();
        return queue.isEmpty() ? null : queue.entrySet().iterator().next();
    }

    /** Takes the read or the write lock once it is free for {@code s} (model state only). */
    private void take(TS s, boolean write) {
        queue.remove(s);
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

    /**
     * A thread waiting for either side of this lock: the queue queries tell readers from writers
     * by it, and the lock's policy its place in the queue ({@link #since}, from the moment it
     * first found it could not proceed).
     */
    static final class Waiting extends Models.Until {
        final ModelReentrantReadWriteLock rw;
        final TS ts;
        final boolean write;

        Waiting(ModelReentrantReadWriteLock rw, TS s, boolean write) {
            super(() -> write ? rw.canWrite(s, true) : rw.canRead(s, true), rw, write ? "waiting to write-lock" : "waiting to read-lock", null);
            this.rw = rw;
            this.ts = s;
            this.write = write;
        }

        @Override
        public boolean ready(TS t) {
            boolean r = super.ready(t);
            if (!r) {
                rw.fresh();
                rw.queue.putIfAbsent(ts, write); // queued now, behind everyone before it, until it takes the lock or gives up
            }
            return r;
        }
    }

    /** {@code lock()} of either side waits at its point while the other side has it. */
    Gated.Gate gate(TS s, int site, boolean write) {
        if (!Rt.callee(site).equals("lock")) {
            return null;
        }
        return new Gated.Gate(new Waiting(this, s, write), this, !write);
    }

    /** {@code lock}, {@code lockInterruptibly} and timed {@code tryLock} of either side. */
    boolean acquire(boolean write, boolean timed, long nanos, boolean interruptible) throws InterruptedException {
        TS s = self();
        Rt.queuesRead(null); // whether it may go ahead depends on who is queued (the lock's policy)
        boolean taken = false;
        try {
            if (!Models.until(s, new Waiting(this, s, write), timed, nanos, interruptible)) {
                return false;
            }
            take(s, write);
            taken = true;
            return true;
        } finally {
            if (!taken && queue.remove(s) != null) {
                Rt.changed(); // gave up: the next in the queue may be the head now
            }
        }
    }

    // =====================================================================================
    // The JDK's queries, from the model

    /** The threads of this execution queued for the lock, the latest first: writers when {@code writers}, readers when {@code readers}. */
    List<Thread> queued(boolean writers, boolean readers) {
        Rt.queuesRead(this);
        fresh();
        List<Thread> out = new ArrayList<>();
        for (java.util.Map.Entry<TS, Boolean> e : queue.entrySet()) {
            if (e.getValue() ? writers : readers) {
                out.add(0, e.getKey().thread); // the latest first, as the JDK walks its queue from the tail
            }
        }
        if (writers) {
            // woken from a wait on a condition of the write lock: acquiring it again
            for (Thread t : Rt.queuedOn(writer)) {
                if (!out.contains(t)) {
                    out.add(t);
                }
            }
        }
        return out;
    }

    private int readHolds(TS s) {
        int n = 0;
        for (TS r : readers) {
            n += r == s ? 1 : 0;
        }
        return n;
    }

    @Override
    public boolean isWriteLockedByCurrentThread() {
        TS s = Rt.me();
        fresh();
        return s != null && writer.owner == s;
    }

    @Override
    public int getWriteHoldCount() {
        TS s = Rt.me();
        fresh();
        return s != null && writer.owner == s ? writer.holds : 0;
    }

    @Override
    public int getReadHoldCount() {
        TS s = Rt.me();
        fresh();
        return s == null ? 0 : readHolds(s);
    }

    @Override
    protected Thread getOwner() {
        Rt.lockRead(this);
        fresh();
        return writer.owner == null ? null : writer.owner.thread;
    }

    @Override
    protected Collection<Thread> getQueuedWriterThreads() {
        return queued(true, false);
    }

    @Override
    protected Collection<Thread> getQueuedReaderThreads() {
        return queued(false, true);
    }

    @Override
    protected Collection<Thread> getQueuedThreads() {
        return queued(true, true);
    }

    @Override
    public boolean hasWaiters(Condition condition) {
        return !ModelCondition.checkQuery(condition, this, writer).waitingThreads().isEmpty();
    }

    @Override
    public int getWaitQueueLength(Condition condition) {
        return ModelCondition.checkQuery(condition, this, writer).waitingThreads().size();
    }

    @Override
    protected Collection<Thread> getWaitingThreads(Condition condition) {
        return ModelCondition.checkQuery(condition, this, writer).waitingThreads();
    }

    @Override
    public String toString() {
        Rt.lockRead(this);
        fresh();
        return Models.identity(this, ReentrantReadWriteLock.class) + "[Write locks = " + writer.holds + ", Read locks = " + readers.size() + "]";
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
        if (!(write ? canWrite(s, false) : canRead(s, false))) {
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

        @Override
        public String toString() {
            Rt.lockRead(rw);
            rw.fresh();
            return Models.identity(this, ReentrantReadWriteLock.ReadLock.class) + "[Read locks = " + rw.readers.size() + "]";
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

        @Override
        public String toString() {
            Rt.lockRead(rw);
            rw.fresh();
            TS o = rw.writer.owner;
            return Models.identity(this, ReentrantReadWriteLock.WriteLock.class)
                    + (o == null ? "[Unlocked]" : "[Locked by thread " + o.thread.getName() + "]");
        }
    }
}
