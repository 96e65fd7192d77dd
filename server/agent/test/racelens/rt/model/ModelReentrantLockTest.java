package racelens.rt.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static racelens.rt.Controlled.call;
import static racelens.rt.Controlled.run;
import static racelens.rt.Controlled.start;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import org.junit.jupiter.api.Test;
import racelens.rt.Controlled;
import racelens.rt.Rt;
import racelens.rt.Scenarios;

/**
 * {@link ModelReentrantLock} and its {@link ModelCondition}s: outside an execution the JDK's
 * lock; under the scheduler ownership, re-entrancy and the hold count are model state, a
 * contended {@code lock()} waits at its point, the lock excludes in every schedule, opposite
 * lock orders deadlock in some schedule, a condition's {@code signal} wakes the longest waiter,
 * and a fair lock grants itself in arrival order.
 */
class ModelReentrantLockTest {
    @Test
    void uncontrolledItIsTheJdksLock() throws Exception {
        ModelReentrantLock l = new ModelReentrantLock();
        l.lock();
        l.lock();
        assertEquals(2, l.getHoldCount());
        assertTrue(l.isHeldByCurrentThread());
        assertTrue(l.isLocked());
        assertSame(Thread.currentThread(), l.getOwner());
        boolean[] other = {true};
        Thread t = new Thread(() -> other[0] = l.tryLock());
        t.start();
        t.join(10_000);
        assertFalse(other[0], "held by this thread");
        l.unlock();
        l.unlock();
        assertFalse(l.isLocked());
        assertThrows(IllegalMonitorStateException.class, l::unlock);
        assertTrue(l.toString().startsWith("java.util.concurrent.locks.ReentrantLock@"), l.toString());
        assertTrue(l.toString().endsWith("[Unlocked]"), l.toString());
    }

    @Test
    void uncontrolledConditionsSayTheyNeedControl() {
        ModelReentrantLock l = new ModelReentrantLock();
        Condition c = l.newCondition();
        l.lock();
        try {
            IllegalStateException e = assertThrows(IllegalStateException.class, c::await);
            assertTrue(e.getMessage().startsWith("racelens:"), e.getMessage());
        } finally {
            l.unlock();
        }
    }

    @Test
    void reentrancyAndHoldCountAreModelState() {
        run(() -> {
            ModelReentrantLock l = new ModelReentrantLock();
            Controlled.invoke(l, "lock", l::lock);
            Controlled.invoke(l, "lock", l::lock);
            assertEquals(2, l.getHoldCount());
            assertTrue(l.isHeldByCurrentThread());
            assertSame(Thread.currentThread(), l.getOwner());
            boolean[] seen = new boolean[3];
            Thread t = start("T1", () -> {
                seen[0] = l.isLocked();
                seen[1] = l.isHeldByCurrentThread();
                seen[2] = call(l, "tryLock", l::tryLock);
                assertThrows(IllegalMonitorStateException.class, l::unlock);
            });
            Controlled.join(t);
            assertTrue(seen[0]);
            assertFalse(seen[1]);
            assertFalse(seen[2], "tryLock of a held lock fails");
            Controlled.invoke(l, "unlock", l::unlock);
            assertEquals(1, l.getHoldCount());
            assertTrue(l.isLocked());
            Controlled.invoke(l, "unlock", l::unlock);
            assertFalse(l.isLocked());
            assertNull(l.getOwner());
            assertTrue(l.toString().endsWith("[Unlocked]"), l.toString());
        }).assertPass();
    }

    @Test
    void theLockExcludesInEverySchedule() {
        Scenarios.assertExclusive(Scenarios.same(() -> {
            ModelReentrantLock l = new ModelReentrantLock();
            return new Scenarios.Guard(() -> Controlled.invoke(l, "lock", l::lock), () -> Controlled.invoke(l, "unlock", l::unlock));
        }));
    }

    @Test
    void oppositeLockOrdersDeadlockInSomeSchedule() {
        Controlled.Explored e = Controlled.explore(1000, out -> {
            ModelReentrantLock a = new ModelReentrantLock();
            ModelReentrantLock b = new ModelReentrantLock();
            Thread t = start("T1", () -> {
                Controlled.invoke(b, "lock", b::lock);
                Controlled.invoke(a, "lock", a::lock);
                a.unlock();
                b.unlock();
            });
            Controlled.invoke(a, "lock", a::lock);
            Controlled.invoke(b, "lock", b::lock);
            b.unlock();
            a.unlock();
            Controlled.join(t);
        });
        List<String> outcomes = new ArrayList<>();
        e.results.forEach(r -> outcomes.add(r.outcome));
        assertTrue(outcomes.contains("pass"), outcomes.toString());
        assertTrue(outcomes.contains("deadlock"), outcomes.toString());
        Controlled.Result dead = e.results.stream().filter(r -> r.outcome.equals("deadlock")).findFirst().get();
        assertEquals(2, dead.lines("WAIT ").size(), dead.toString());
        assertTrue(dead.response.contains("blocked on lock"), dead.response);
    }

    @Test
    void aTimedTryLockTimesOutWhileAnotherHoldsIt() {
        run(() -> {
            ModelReentrantLock l = new ModelReentrantLock();
            Controlled.invoke(l, "lock", l::lock);
            boolean[] got = {true};
            Thread t = start("T1", () -> got[0] = call(l, "tryLock", () -> l.tryLock(1, TimeUnit.SECONDS)));
            Controlled.join(t);
            assertFalse(got[0]);
            assertTrue(Rt.clock() >= TimeUnit.SECONDS.toNanos(1));
            Controlled.invoke(l, "unlock", l::unlock);
        }).assertPass();
    }

    @Test
    void signalWakesTheLongestWaiterWhichRetakesTheLock() {
        List<String> log = new ArrayList<>();
        run(() -> {
            ModelReentrantLock l = new ModelReentrantLock();
            Condition c = l.newCondition();
            List<Thread> ts = Scenarios.startInTurn(List.of("A", "B"), name -> () -> {
                Controlled.invoke(l, "lock", l::lock);
                try {
                    Controlled.invoke(c, "await", c::await);
                    assertTrue(l.isHeldByCurrentThread(), "holds the lock again after await");
                    log.add(name);
                } finally {
                    l.unlock();
                }
            }, started -> {
                l.lock();
                try {
                    return l.getWaitQueueLength(c) == started.size();
                } finally {
                    l.unlock();
                }
            });
            Controlled.invoke(l, "lock", l::lock);
            assertTrue(l.hasWaiters(c));
            assertEquals(java.util.Set.copyOf(ts), java.util.Set.copyOf(l.getWaitingThreads(c)));
            Controlled.invoke(c, "signal", c::signal);
            assertEquals(1, l.getWaitQueueLength(c));
            Controlled.invoke(l, "unlock", l::unlock);
            Controlled.join(ts.get(0));
            assertEquals(List.of("A"), log, "A waited longest");
            Controlled.invoke(l, "lock", l::lock);
            Controlled.invoke(c, "signalAll", c::signalAll);
            Controlled.invoke(l, "unlock", l::unlock);
            Controlled.join(ts.get(1));
        }).assertPass();
        assertEquals(List.of("A", "B"), log);
    }

    @Test
    void aFairLockIsGrantedInArrivalOrder() {
        Controlled.Explored e = Controlled.explore(1000, out -> {
            ModelReentrantLock l = new ModelReentrantLock(true);
            List<String> order = new ArrayList<>();
            Controlled.invoke(l, "lock", l::lock);
            List<Thread> ts = Scenarios.startInTurn(List.of("A", "B"), name -> () -> {
                Controlled.invoke(l, "lock", l::lock);
                order.add(name);
                l.unlock();
            }, started -> FinalCalls.getQueueLength(l) == started.size());
            Controlled.invoke(l, "unlock", l::unlock);
            Controlled.joinAll(ts);
            out.accept(order);
        });
        assertTrue(e.all("pass"), e.results.toString());
        assertTrue(e.values.stream().allMatch(List.of("A", "B")::equals), e.values.toString());
    }
}
