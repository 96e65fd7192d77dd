package racelens.rt.model;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;
import racelens.rt.Gated;
import racelens.rt.OwnEffects;
import racelens.rt.Rt;
import racelens.rt.TS;

/**
 * Replaces {@code new StampedLock()}: the lock's state and its stamps are the real lock's (every
 * non-blocking operation is the JDK's own, so stamps, versions, validation, conversions and the
 * static {@code isWriteLockStamp} family behave exactly as documented); only waiting happens in
 * the model. {@code writeLock()}/{@code readLock()} (and the views' {@code lock()}) wait at
 * their call's point while the lock is taken the other way ({@link Gated}, as a monitor does);
 * the interruptible and timed acquisitions wait inside the model (timeouts in logical time,
 * {@code InterruptedException} when interrupted on entry or while waiting). The views of
 * {@code asReadLock()}, {@code asWriteLock()} and {@code asReadWriteLock()} map onto these
 * methods as the JDK's do. Uncontrolled callers use the real lock, whose state controlled
 * threads share: a controlled thread waiting in the model for a lock an uncontrolled thread
 * holds notices its release only at the next change of model state.
 *
 * <p>Not modelled: the JDK's queue order (a reader that arrives while a writer waits queues
 * behind it there; here it takes the read lock whenever no writer holds it).
 *
 * <p>Effects ({@link OwnEffects}: calls add no generic effect). The reduction orders two
 * acquisitions of one lock by their effects on the lock's variable L ({@code this}), and it can
 * only reverse a race whose later step could have run earlier: anything that touches what an
 * acquisition touches, between the previous acquisition and it, at a moment when the acquirer
 * could not have run (the lock held), hides that race (found with a test whose second writer
 * was never tried first). So:
 * <ul>
 * <li>L, as for the other lock models: taking the write lock writes it
 * ({@code Rt.lockTaken(this, false)}), taking a read lock reads it (readers share it), a
 * release touches nothing ({@code Rt.lockReleased}). Besides, only an observer of a lock that
 * nobody holds reads L.
 * <li>The write periods: a fresh object for every write section (written by the acquisition
 * that opens it and the release that closes it) and for every stretch between two sections
 * (written by the release that opens it). An observer of the write state
 * ({@code tryOptimisticRead}, {@code validate}, {@code isWriteLocked}, the check inside every
 * attempt, conversion and unlock) reads the current one, so it is ordered against the
 * acquisition before it and the release after it, and, reading L once the lock is free,
 * against the next acquisition. (A read of L alone missed the release: an optimistic read
 * inside a write section counted as one after it.) Fresh objects: no later acquisition touches
 * them.
 * <li>R, the read holds (the {@code readers} object): taking and releasing a read lock read it
 * (readers commute); an observer of the read holds ({@code isReadLocked},
 * {@code getReadLockCount}, {@code tryWriteLock}, conversions) writes it, and so does an
 * observer of the write state while readers hold the lock (instead of reading L: that read
 * could come from a reader itself, inside its own hold). Read releases observe, so they write
 * it too.
 * </ul>
 * A conversion between a read hold and the write lock touches no L either (the caller holds L
 * throughout; its first acquisition is what later ones race with): it closes or opens a write
 * section and touches R.
 * Periods and R are written through {@code Rt.lockTaken(x, false)} (an acquisition is a write of
 * its variable; these are never released) and read through {@code Rt.lockRead(x)}.
 */
public class ModelStampedLock extends java.util.concurrent.locks.StampedLock implements Gated, OwnEffects {
    private static final long serialVersionUID = 1L;
    /** The JDK's state bits (StampedLock.java): the write bit, the reader bits. */
    private static final long WBIT = 1L << 7;
    private static final long ABITS = (WBIT - 1L) | WBIT;

    /** A write period of the class comment; only the trace sees it. */
    private static final class Period {}

    /** R of the class comment; only the trace sees it. */
    private static final class Readers {}

    private transient Object period = new Period();
    private final transient Readers readers = new Readers();
    private transient Lock readView;
    private transient Lock writeView;
    private transient ReadWriteLock readWriteView;

    public ModelStampedLock() {
        super();
    }

    // ---- model state (real state read without effects: conditions of waits and gates)

    private boolean freeToWrite() {
        return !super.isWriteLocked() && !super.isReadLocked();
    }

    private boolean freeToRead() {
        return !super.isWriteLocked();
    }

    // ---- effects (recorded only while the running controlled thread is traced: see Rt)

    private static void write(Object v) {
        Rt.lockTaken(v, false);
    }

    private static void read(Object v) {
        Rt.lockRead(v);
    }

    /** The caller's answer depends on the write state. */
    private void observeWriter() {
        read(period);
        if (super.isWriteLocked()) {
            return;
        }
        if (super.isReadLocked()) {
            write(readers);
        } else {
            read(this);
        }
    }

    /** The caller's answer depends on the read holds. */
    private void observeReaders() {
        if (super.isWriteLocked()) {
            read(period); // none while the section lasts
        } else {
            write(readers);
        }
    }

    private void openSection() {
        period = new Period();
        write(period);
    }

    private void closeSection() {
        write(period);
        period = new Period();
        write(period);
    }

    private void tookWrite() {
        Rt.lockTaken(this, false);
        openSection();
        Rt.changed();
    }

    private void releasedWrite() {
        Rt.lockReleased(this);
        closeSection();
        Rt.changed();
    }

    private void tookRead() {
        Rt.lockTaken(this, true);
        read(readers);
        Rt.changed();
    }

    private void releasedRead() {
        Rt.lockReleased(this);
        read(readers);
        Rt.changed();
    }

    // ---- waiting

    /** {@code writeLock()} and {@code readLock()} (the views' {@code lock()}) wait at their point. */
    @Override
    public Gate gate(TS s, int site) {
        String m = Rt.callee(site);
        return m.equals("writeLock") ? gate(true) : m.equals("readLock") ? gate(false) : null;
    }

    Gate gate(boolean write) {
        Models.Until until = new Models.Until(write ? this::freeToWrite : this::freeToRead, this,
                write ? "waiting to write-lock" : "waiting to read-lock", null);
        return new Gate(until, this, !write);
    }

    /**
     * Takes the lock, waiting in the model (at most {@code nanos} when timed); 0 on timeout. An
     * interruptible acquisition throws when the caller is interrupted on entry, as the JDK's.
     */
    private long acquire(TS s, boolean write, boolean timed, long nanos, boolean interruptible) throws InterruptedException {
        if (interruptible) {
            Models.checkInterrupt(s);
        }
        long deadline = Models.deadline(nanos);
        for (;;) {
            long stamp = write ? super.tryWriteLock() : super.tryReadLock();
            if (stamp != 0L) {
                if (write) {
                    tookWrite();
                } else {
                    tookRead();
                }
                return stamp;
            }
            observeWriter(); // a failed attempt: it waits, or gives up at once
            if (write) {
                observeReaders();
            }
            long left = timed ? Models.left(deadline) : 0;
            if (timed && left <= 0) {
                return 0L;
            }
            String verb = write ? "waiting to write-lock" : "waiting to read-lock";
            if (interruptible) {
                if (!Models.until(s, write ? this::freeToWrite : this::freeToRead, this, verb, timed, left, true)) {
                    return 0L; // timed out
                }
            } else {
                Models.untilUninterruptibly(s, write ? this::freeToWrite : this::freeToRead, this, verb);
            }
        }
    }

    private long acquireUninterruptibly(TS s, boolean write) {
        try {
            return acquire(s, write, false, 0, false);
        } catch (InterruptedException e) {
            throw new AssertionError(e); // not interruptible: never thrown
        }
    }

    // ---- the write lock

    @Override
    public long writeLock() {
        TS s = Rt.me();
        return s == null ? super.writeLock() : acquireUninterruptibly(s, true);
    }

    @Override
    public long tryWriteLock() {
        TS s = Rt.me();
        if (s == null) {
            return super.tryWriteLock();
        }
        observeWriter();
        observeReaders();
        long stamp = super.tryWriteLock();
        if (stamp != 0L) {
            tookWrite();
        }
        return stamp;
    }

    @Override
    public long tryWriteLock(long time, TimeUnit unit) throws InterruptedException {
        TS s = Rt.me();
        return s == null ? super.tryWriteLock(time, unit) : acquire(s, true, true, unit.toNanos(time), true);
    }

    @Override
    public long writeLockInterruptibly() throws InterruptedException {
        TS s = Rt.me();
        return s == null ? super.writeLockInterruptibly() : acquire(s, true, false, 0, true);
    }

    @Override
    public void unlockWrite(long stamp) {
        TS s = Rt.me();
        if (s == null) {
            super.unlockWrite(stamp);
            return;
        }
        observeWriter();
        super.unlockWrite(stamp); // IllegalMonitorStateException unless stamp is the state
        releasedWrite();
    }

    @Override
    public boolean tryUnlockWrite() {
        TS s = Rt.me();
        if (s == null) {
            return super.tryUnlockWrite();
        }
        observeWriter();
        boolean released = super.tryUnlockWrite();
        if (released) {
            releasedWrite();
        }
        return released;
    }

    // ---- read locks

    @Override
    public long readLock() {
        TS s = Rt.me();
        return s == null ? super.readLock() : acquireUninterruptibly(s, false);
    }

    @Override
    public long tryReadLock() {
        TS s = Rt.me();
        if (s == null) {
            return super.tryReadLock();
        }
        observeWriter();
        long stamp = super.tryReadLock();
        if (stamp != 0L) {
            tookRead();
        }
        return stamp;
    }

    @Override
    public long tryReadLock(long time, TimeUnit unit) throws InterruptedException {
        TS s = Rt.me();
        return s == null ? super.tryReadLock(time, unit) : acquire(s, false, true, unit.toNanos(time), true);
    }

    @Override
    public long readLockInterruptibly() throws InterruptedException {
        TS s = Rt.me();
        return s == null ? super.readLockInterruptibly() : acquire(s, false, false, 0, true);
    }

    @Override
    public void unlockRead(long stamp) {
        TS s = Rt.me();
        if (s == null) {
            super.unlockRead(stamp);
            return;
        }
        observeWriter();
        observeReaders();
        super.unlockRead(stamp); // IllegalMonitorStateException unless a read stamp of this version
        releasedRead();
    }

    @Override
    public boolean tryUnlockRead() {
        TS s = Rt.me();
        if (s == null) {
            return super.tryUnlockRead();
        }
        observeWriter();
        observeReaders();
        boolean released = super.tryUnlockRead();
        if (released) {
            releasedRead();
        }
        return released;
    }

    @Override
    public void unlock(long stamp) {
        if ((stamp & WBIT) != 0L) { // as the JDK's: by the stamp's kind
            unlockWrite(stamp);
        } else {
            unlockRead(stamp);
        }
    }

    // ---- optimistic reads and conversions

    @Override
    public long tryOptimisticRead() {
        if (Rt.me() != null) {
            observeWriter();
        }
        return super.tryOptimisticRead();
    }

    @Override
    public boolean validate(long stamp) {
        if (Rt.me() != null) {
            observeWriter();
        }
        return super.validate(stamp);
    }

    @Override
    public long tryConvertToWriteLock(long stamp) {
        TS s = Rt.me();
        if (s == null) {
            return super.tryConvertToWriteLock(stamp);
        }
        observeWriter();
        observeReaders();
        long next = super.tryConvertToWriteLock(stamp);
        long held = stamp & ABITS;
        if (next != 0L && held == 0L) { // from an optimistic stamp: as tryWriteLock
            tookWrite();
        } else if (next != 0L && held != WBIT) {
            // the caller's read hold becomes the write lock: no effect on L, which the caller
            // holds all along (its read acquisition is what later acquisitions race with)
            openSection();
            Rt.changed();
        }
        return next;
    }

    @Override
    public long tryConvertToReadLock(long stamp) {
        TS s = Rt.me();
        if (s == null) {
            return super.tryConvertToReadLock(stamp);
        }
        observeWriter();
        observeReaders();
        long next = super.tryConvertToReadLock(stamp);
        long held = stamp & ABITS;
        if (next != 0L && held >= WBIT) {
            // the caller's write lock becomes a read hold: L stays the caller's, as above
            closeSection();
            read(readers);
            Rt.changed();
        } else if (next != 0L && held == 0L) { // from an optimistic stamp: as tryReadLock
            tookRead();
        }
        return next;
    }

    @Override
    public long tryConvertToOptimisticRead(long stamp) {
        TS s = Rt.me();
        if (s == null) {
            return super.tryConvertToOptimisticRead(stamp);
        }
        observeWriter();
        observeReaders();
        long next = super.tryConvertToOptimisticRead(stamp);
        long held = stamp & ABITS;
        if (next != 0L && held >= WBIT) {
            releasedWrite();
        } else if (next != 0L && held != 0L) {
            releasedRead();
        }
        return next;
    }

    // ---- queries

    @Override
    public boolean isWriteLocked() {
        if (Rt.me() != null) {
            observeWriter();
        }
        return super.isWriteLocked();
    }

    @Override
    public boolean isReadLocked() {
        if (Rt.me() != null) {
            observeReaders();
        }
        return super.isReadLocked();
    }

    @Override
    public int getReadLockCount() {
        if (Rt.me() != null) {
            observeReaders();
        }
        return super.getReadLockCount();
    }

    @Override
    public String toString() {
        if (Rt.me() != null) {
            observeWriter();
            observeReaders();
        }
        String real = super.toString(); // Object's name of this object, then the state
        return getClass() == ModelStampedLock.class ? real.replace(ModelStampedLock.class.getName(), "java.util.concurrent.locks.StampedLock") : real;
    }

    // ---- views: the JDK's mapping, through the methods above

    @Override
    public Lock asReadLock() {
        Lock v = readView;
        return v != null ? v : (readView = new View(false));
    }

    @Override
    public Lock asWriteLock() {
        Lock v = writeView;
        return v != null ? v : (writeView = new View(true));
    }

    @Override
    public ReadWriteLock asReadWriteLock() {
        ReadWriteLock v = readWriteView;
        return v != null ? v : (readWriteView = new Views());
    }

    /** {@code asReadWriteLock()}: hands out the two views (no effect of its own). */
    private final class Views implements ReadWriteLock, OwnEffects {
        @Override
        public Lock readLock() {
            return asReadLock();
        }

        @Override
        public Lock writeLock() {
            return asWriteLock();
        }
    }

    /** {@code asReadLock()} or {@code asWriteLock()}: its {@code lock()} waits at its point. */
    private final class View implements Lock, Gated, OwnEffects {
        final boolean write;

        View(boolean write) {
            this.write = write;
        }

        @Override
        public Gate gate(TS s, int site) {
            return Rt.callee(site).equals("lock") ? ModelStampedLock.this.gate(write) : null;
        }

        @Override
        public void lock() {
            if (write) {
                writeLock();
            } else {
                readLock();
            }
        }

        @Override
        public void lockInterruptibly() throws InterruptedException {
            if (write) {
                writeLockInterruptibly();
            } else {
                readLockInterruptibly();
            }
        }

        @Override
        public boolean tryLock() {
            return (write ? tryWriteLock() : tryReadLock()) != 0L;
        }

        @Override
        public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
            return (write ? tryWriteLock(time, unit) : tryReadLock(time, unit)) != 0L;
        }

        @Override
        public void unlock() {
            // the JDK's unstamped unlock: whichever hold there is, or IllegalMonitorStateException
            if (!(write ? tryUnlockWrite() : tryUnlockRead())) {
                throw new IllegalMonitorStateException();
            }
        }

        @Override
        public Condition newCondition() {
            throw new UnsupportedOperationException();
        }
    }
}
