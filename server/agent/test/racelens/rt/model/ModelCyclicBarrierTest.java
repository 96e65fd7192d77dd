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
import java.util.TreeSet;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import racelens.rt.Controlled;
import racelens.rt.Scenarios;

/**
 * {@link ModelCyclicBarrier}: outside an execution the JDK's barrier; under the scheduler the
 * parties wait in the model until the last one arrives, each generation runs the barrier action
 * once (by the last party, before anyone is released), the arrival indices of a generation are
 * distinct, the barrier is reusable, and a timeout breaks it for everyone.
 */
class ModelCyclicBarrierTest {
    @Test
    void uncontrolledOnePartyTripsAtOnce() throws Exception {
        int[] actions = {0};
        ModelCyclicBarrier b = new ModelCyclicBarrier(1, () -> actions[0]++);
        assertEquals(0, b.await());
        assertEquals(0, b.await(1, TimeUnit.SECONDS));
        assertEquals(2, actions[0]);
        assertEquals(1, b.getParties());
    }

    @Test
    void uncontrolledQueriesAndResetSeeTheJdksWaiters() throws Exception {
        // as in @BeforeClass: await waits in the JDK's barrier, so its queries and reset must be the JDK's too
        ModelCyclicBarrier b = new ModelCyclicBarrier(2);
        Scenarios.Outside waiter = Scenarios.outside("waiter", b::await).awaitParked();
        assertEquals(1, b.getNumberWaiting(), "the waiter parked in the JDK's barrier");
        assertFalse(b.isBroken());
        b.reset();
        waiter.endThrowing(BrokenBarrierException.class); // reset broke its generation: not stuck
        assertEquals(0, b.getNumberWaiting());
        assertThrows(TimeoutException.class, () -> b.await(1, TimeUnit.MILLISECONDS));
        assertTrue(b.isBroken(), "a timeout breaks the JDK's barrier");
        b.reset();
        assertFalse(b.isBroken());
    }

    @Test
    void twoGenerationsRunTheActionOnceEachInEverySchedule() {
        Controlled.Explored e = Controlled.explore(2000, out -> {
            List<String> log = new ArrayList<>();
            int[] gen = {0};
            ModelCyclicBarrier b = new ModelCyclicBarrier(2, () -> log.add("trip" + ++gen[0]));
            List<Integer> indices = new ArrayList<>();
            Controlled.Body party = () -> {
                for (int round = 1; round <= 2; round++) {
                    log.add("arrive" + round);
                    indices.add(call(b, "await", b::await));
                    assertEquals(round, gen[0], "released only after the action of its generation");
                }
            };
            Scenarios.inTwo(party, party);
            out.accept(List.of(log, indices));
        });
        assertTrue(e.all("pass"), e.results.toString());
        assertTrue(e.results.size() > 1);
        for (Object v : e.values) {
            List<?> log = (List<?>) ((List<?>) v).get(0);
            List<?> indices = (List<?>) ((List<?>) v).get(1);
            // nobody passes a generation before its last party arrived and its action ran
            assertEquals(List.of("arrive1", "arrive1", "trip1", "arrive2", "arrive2", "trip2"), log);
            assertEquals(new TreeSet<>(List.of(0, 1)), new TreeSet<>(indices.subList(0, 2)), indices.toString());
            assertEquals(new TreeSet<>(List.of(0, 1)), new TreeSet<>(indices.subList(2, 4)), indices.toString());
        }
    }

    @Test
    void numberWaitingCountsTheArrivedParties() {
        run(() -> {
            ModelCyclicBarrier b = new ModelCyclicBarrier(3);
            Thread t1 = start("T1", () -> call(b, "await", b::await));
            Controlled.yieldUntil(() -> b.getNumberWaiting() == 1);
            Thread t2 = start("T2", () -> call(b, "await", b::await));
            Controlled.yieldUntil(() -> b.getNumberWaiting() == 2);
            assertEquals(0, (int) call(b, "await", b::await), "the last to arrive gets index 0");
            assertEquals(0, b.getNumberWaiting(), "a new generation");
            Controlled.join(t1);
            Controlled.join(t2);
        }).assertPass();
    }

    @Test
    void aTimeoutBreaksTheBarrierForEveryone() {
        run(() -> {
            ModelCyclicBarrier b = new ModelCyclicBarrier(3);
            Scenarios.Expecting t = Scenarios.startExpecting("T1", BrokenBarrierException.class, () -> call(b, "await", b::await));
            Controlled.yieldUntil(() -> b.getNumberWaiting() == 1);
            assertThrows(TimeoutException.class, () -> call(b, "await", () -> b.await(1, TimeUnit.SECONDS)));
            assertTrue(b.isBroken());
            Controlled.join(t.thread);
            assertTrue(t.threw(), "the other party saw it broken");
            assertThrows(BrokenBarrierException.class, () -> call(b, "await", b::await));
            b.reset();
            assertTrue(!b.isBroken() && b.getNumberWaiting() == 0, "reset makes a fresh generation");
        }).assertPass();
    }
}
