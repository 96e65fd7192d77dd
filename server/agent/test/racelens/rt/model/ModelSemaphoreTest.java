package racelens.rt.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static racelens.rt.Controlled.call;
import static racelens.rt.Controlled.run;
import static racelens.rt.Controlled.start;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import racelens.rt.Controlled;
import racelens.rt.Rt;
import racelens.rt.Scenarios;

/**
 * {@link ModelSemaphore}: outside an execution it is the JDK's semaphore (the harness and
 * {@code @BeforeClass} use it so); under the scheduler its permits are the real ones, a thread
 * without permits is disabled (never parked in the JDK), a release enables it, the queue
 * queries list the waiters, a fair one serves them in arrival order, and timed acquisitions
 * time out in logical time.
 */
class ModelSemaphoreTest {
    @Test
    void uncontrolledItIsTheJdksSemaphore() throws Exception {
        ModelSemaphore s = new ModelSemaphore(2);
        s.acquire();
        s.acquire();
        assertEquals(0, s.availablePermits());
        assertFalse(s.tryAcquire());
        assertFalse(s.tryAcquire(1, 0, TimeUnit.MILLISECONDS));
        s.release(3);
        assertEquals(3, s.availablePermits());
        assertEquals(3, s.drainPermits());
        assertThrows(IllegalArgumentException.class, () -> s.acquire(-1));
        assertTrue(s.toString().startsWith("java.util.concurrent.Semaphore@"), s.toString());
        assertTrue(s.toString().endsWith("[Permits = 0]"), s.toString());
    }

    @Test
    void uncontrolledAcquireBlocksInTheJdkUntilARelease() throws Exception {
        ModelSemaphore s = new ModelSemaphore(0);
        Thread waiter = new Thread(s::acquireUninterruptibly, "waiter");
        waiter.start();
        while (!s.hasQueuedThreads()) {
            Thread.onSpinWait(); // the JDK's queue: it is parked in the real semaphore
        }
        s.release();
        waiter.join(10_000); // hang guard only
        assertFalse(waiter.isAlive());
        assertEquals(0, s.availablePermits());
    }

    /** A fresh semaphore of {@code permits} as the guard of both threads' sections. */
    private static Supplier<Scenarios.Guard[]> permits(int permits) {
        return Scenarios.same(() -> {
            ModelSemaphore s = new ModelSemaphore(permits);
            return new Scenarios.Guard(() -> Controlled.invoke(s, "acquire", s::acquire), () -> Controlled.invoke(s, "release", s::release));
        });
    }

    @Test
    void onePermitExcludesInEverySchedule() {
        Scenarios.assertExclusive(permits(1));
    }

    @Test
    void twoPermitsLetTwoIn() {
        Controlled.Explored e = Scenarios.sections(permits(2));
        assertTrue(e.all("pass"), e.results.toString());
        assertTrue(e.values.stream().anyMatch(v -> ((Scenarios.Sections) v).most() == 2), "some schedule has both inside: " + e.values);
    }

    @Test
    void aWaiterIsQueuedAndReleasedByARelease() {
        run(() -> {
            ModelSemaphore s = new ModelSemaphore(0);
            List<String> log = new ArrayList<>();
            Thread t = start("T1", () -> {
                Controlled.invoke(s, "acquire", () -> s.acquire(2));
                log.add("acquired");
            });
            Controlled.yieldUntil(() -> FinalCalls.getQueueLength(s) == 1);
            assertTrue(FinalCalls.hasQueuedThreads(s));
            assertEquals(List.of(t), new ArrayList<>(s.getQueuedThreads()));
            Controlled.invoke(s, "release", s::release);
            Controlled.point();
            assertEquals(List.of(), log, "one permit is not enough for two");
            Controlled.invoke(s, "release", s::release);
            Controlled.join(t);
            assertEquals(List.of("acquired"), log);
            assertEquals(0, s.availablePermits());
            assertFalse(FinalCalls.hasQueuedThreads(s));
        }).assertPass();
    }

    @Test
    void aWaiterNobodyReleasesIsADeadlock() {
        Scenarios.assertDeadlock("waiting for permits of", () -> {
            ModelSemaphore s = new ModelSemaphore(0);
            Controlled.invoke(s, "acquire", s::acquire);
        });
    }

    @Test
    void aTimedAcquireTimesOutInLogicalTime() {
        run(() -> {
            ModelSemaphore s = new ModelSemaphore(0);
            Scenarios.assertTimesOut(5, () -> call(s, "tryAcquire", () -> s.tryAcquire(5, TimeUnit.SECONDS)));
            assertEquals(0, FinalCalls.getQueueLength(s), "gave up: not queued any more");
        }).assertPass();
    }

    @Test
    void anInterruptedWaiterGivesUp() {
        run(() -> {
            ModelSemaphore s = new ModelSemaphore(0);
            Scenarios.assertInterruptEndsTheWait(() -> Controlled.invoke(s, "acquire", s::acquire), t -> FinalCalls.getQueueLength(s) == 1);
            assertEquals(0, s.availablePermits());
        }).assertPass();
    }

    @Test
    void aFairSemaphoreServesWaitersInArrivalOrder() {
        Controlled.Explored e = Controlled.explore(1000, out -> {
            ModelSemaphore s = new ModelSemaphore(0, true);
            List<String> order = new ArrayList<>();
            List<Thread> ts = Scenarios.startInTurn(List.of("A", "B"), name -> () -> {
                Controlled.invoke(s, "acquire", s::acquire);
                order.add(name);
            }, started -> FinalCalls.getQueueLength(s) == started.size());
            Controlled.invoke(s, "release", s::release);
            Controlled.invoke(s, "release", s::release);
            Controlled.joinAll(ts);
            out.accept(order);
        });
        assertTrue(e.all("pass"), e.results.toString());
        assertTrue(e.results.size() > 1, "more than one schedule");
        assertTrue(e.values.stream().allMatch(List.of("A", "B")::equals), e.values.toString());
    }
}
