package racelens.rt.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static racelens.rt.Controlled.call;
import static racelens.rt.Controlled.run;
import static racelens.rt.Controlled.start;

import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.StampedLock;
import org.junit.jupiter.api.Test;
import racelens.rt.Controlled;
import racelens.rt.Scenarios;

/**
 * {@link ModelReentrantReadWriteLock} and {@link ModelStampedLock}: readers share, a writer
 * excludes readers and writers in every schedule, write holds are re-entrant, a writer may take
 * the read lock but a reader cannot upgrade; StampedLock's stamps are the JDK's (an optimistic
 * read validates until a writer comes), and uncontrolled callers get what racelens documents
 * (the read-write model refuses them; StampedLock is then the JDK's).
 */
class ModelReadWriteLocksTest {
    @Test
    void uncontrolledReadWriteLockRefusesWithAMessage() {
        ModelReentrantReadWriteLock rw = new ModelReentrantReadWriteLock();
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> rw.readLock().lock());
        assertTrue(e.getMessage().contains("only usable by controlled threads"), e.getMessage());
    }

    @Test
    void readersShareAndHoldCountsAreModelState() {
        run(() -> {
            ModelReentrantReadWriteLock rw = new ModelReentrantReadWriteLock();
            Lock r = rw.readLock();
            Controlled.invoke(r, "lock", r::lock);
            Thread t = start("T1", () -> {
                Controlled.invoke(r, "lock", r::lock);
                assertEquals(2, rw.getReadLockCount());
                assertEquals(1, rw.getReadHoldCount());
                assertFalse((boolean) call(rw.writeLock(), "tryLock", rw.writeLock()::tryLock), "no writer while reading");
                r.unlock();
            });
            Controlled.join(t);
            assertEquals(1, rw.getReadLockCount());
            assertFalse((boolean) call(rw.writeLock(), "tryLock", rw.writeLock()::tryLock), "no upgrade of a read hold");
            r.unlock();
            assertThrows(IllegalMonitorStateException.class, r::unlock);
            assertEquals(0, rw.getReadLockCount());
        }).assertPass();
    }

    @Test
    void writeHoldsAreReentrantAndMayReadToo() {
        run(() -> {
            ModelReentrantReadWriteLock rw = new ModelReentrantReadWriteLock();
            ModelReentrantReadWriteLock.ModelWriteLock w = (ModelReentrantReadWriteLock.ModelWriteLock) rw.writeLock();
            Controlled.invoke(w, "lock", w::lock);
            Controlled.invoke(w, "lock", w::lock);
            assertEquals(2, rw.getWriteHoldCount());
            assertTrue(rw.isWriteLockedByCurrentThread());
            assertTrue(w.isHeldByCurrentThread());
            assertTrue((boolean) call(rw.readLock(), "tryLock", rw.readLock()::tryLock), "a writer may read (downgrade)");
            boolean[] other = {true, true};
            Thread t = start("T1", () -> {
                other[0] = rw.readLock().tryLock();
                other[1] = w.isHeldByCurrentThread();
            });
            Controlled.join(t);
            assertFalse(other[0], "no reader while another thread writes");
            assertFalse(other[1]);
            w.unlock();
            w.unlock();
            assertFalse(rw.isWriteLocked());
            assertEquals(1, rw.getReadLockCount(), "the downgraded read hold stays");
            rw.readLock().unlock();
            assertTrue(rw.toString().endsWith("[Write locks = 0, Read locks = 0]"), rw.toString());
        }).assertPass();
    }

    @Test
    void aWriterExcludesReadersInEverySchedule() {
        // thread 0 reads, T1 writes
        Scenarios.assertExclusive(() -> {
            ModelReentrantReadWriteLock rw = new ModelReentrantReadWriteLock();
            Lock r = rw.readLock();
            Lock w = rw.writeLock();
            return new Scenarios.Guard[] {
                new Scenarios.Guard(() -> Controlled.invoke(r, "lock", r::lock), r::unlock),
                new Scenarios.Guard(() -> Controlled.invoke(w, "lock", w::lock), w::unlock),
            };
        });
    }

    @Test
    void uncontrolledStampedLockIsTheJdks() {
        ModelStampedLock l = new ModelStampedLock();
        long opt = l.tryOptimisticRead();
        assertTrue(l.validate(opt));
        long w = l.writeLock();
        assertTrue(StampedLock.isWriteLockStamp(w));
        assertFalse(l.validate(opt), "a writer invalidates the optimistic read");
        assertEquals(0L, l.tryReadLock());
        l.unlockWrite(w);
        long r = l.readLock();
        assertEquals(1, l.getReadLockCount());
        l.unlockRead(r);
    }

    @Test
    void stampedOptimisticReadsValidateUntilAWriterComes() {
        Controlled.Explored e = Controlled.explore(1000, out -> {
            ModelStampedLock l = new ModelStampedLock();
            int[] xy = {0, 0};
            Thread writer = start("W", () -> {
                long s = call(l, "writeLock", l::writeLock);
                xy[0] = 1;
                Controlled.point(xy);
                xy[1] = 1;
                l.unlockWrite(s);
            });
            long stamp = call(l, "tryOptimisticRead", l::tryOptimisticRead);
            int x = xy[0];
            Controlled.point(xy);
            int y = xy[1];
            boolean valid = call(l, "validate", () -> l.validate(stamp));
            Controlled.join(writer);
            out.accept(valid ? (x == y ? "consistent" : "TORN") : "retry");
        });
        assertTrue(e.all("pass"), e.results.toString());
        assertFalse(e.values.contains("TORN"), e.values.toString());
        assertTrue(e.values.contains("consistent") && e.values.contains("retry"), e.values.toString());
    }

    @Test
    void stampedWriteLockExcludesAndConverts() {
        run(() -> {
            ModelStampedLock l = new ModelStampedLock();
            long r = call(l, "readLock", l::readLock);
            long[] other = {-1};
            Thread t = start("T1", () -> other[0] = call(l, "tryWriteLock", l::tryWriteLock));
            Controlled.join(t);
            assertEquals(0L, other[0], "no writer while reading");
            long w = l.tryConvertToWriteLock(r);
            assertNotEquals(0L, w, "the only reader may convert");
            assertTrue(l.isWriteLocked());
            Thread u = start("T2", () -> other[0] = call(l, "tryReadLock", l::tryReadLock));
            Controlled.join(u);
            assertEquals(0L, other[0], "no reader while writing");
            l.unlockWrite(w);
            assertFalse(l.isWriteLocked() || l.isReadLocked());
        }).assertPass();
    }
}
