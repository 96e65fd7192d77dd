package racelens.rt.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static racelens.rt.Controlled.call;
import static racelens.rt.Controlled.run;
import static racelens.rt.Controlled.start;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import racelens.rt.Controlled;
import racelens.rt.Rt;
import racelens.rt.Scenarios;

/**
 * {@link ModelCountDownLatch}: the count is the JDK's; outside an execution {@code await} is the
 * JDK's, under the scheduler a waiter is disabled until the count reaches zero (then it sees
 * every write made before the last {@code countDown}, in every schedule), a count that never
 * reaches zero is a deadlock, and a timed wait times out in logical time.
 */
class ModelCountDownLatchTest {
    @Test
    void uncontrolledItCountsAsTheJdks() throws Exception {
        ModelCountDownLatch l = new ModelCountDownLatch(2);
        l.countDown();
        assertEquals(1, l.getCount());
        assertFalse(l.await(0, TimeUnit.MILLISECONDS));
        l.countDown();
        l.countDown(); // stays at zero
        assertEquals(0, l.getCount());
        l.await();
        assertTrue(l.await(1, TimeUnit.MILLISECONDS));
    }

    @Test
    void uncontrolledAwaitBlocksInTheJdk() throws Exception {
        ModelCountDownLatch l = new ModelCountDownLatch(1);
        Scenarios.Outside waiter = Scenarios.outside("waiter", l::await).awaitParked();
        l.countDown();
        waiter.endNormally();
    }

    @Test
    void theWaiterSeesBothWorkersResultsInEverySchedule() {
        Controlled.Explored e = Controlled.explore(1000, out -> {
            ModelCountDownLatch l = new ModelCountDownLatch(2);
            int[] results = new int[2];
            for (int i = 0; i < 2; i++) {
                int k = i;
                start("W" + i, () -> {
                    results[k] = k + 1;
                    Controlled.invoke(l, "countDown", l::countDown);
                });
            }
            Controlled.invoke(l, "await", l::await);
            out.accept(results[0] + results[1]);
        });
        assertTrue(e.all("pass"), e.results.toString());
        assertTrue(e.values.stream().allMatch(v -> (int) v == 3), e.values.toString());
        assertTrue(e.results.size() > 2, "several schedules: " + e.results.size());
    }

    @Test
    void aCountThatNeverReachesZeroIsADeadlock() {
        Scenarios.assertDeadlock("waiting on latch", () -> {
            ModelCountDownLatch l = new ModelCountDownLatch(2);
            Thread w = start("W", () -> Controlled.invoke(l, "countDown", l::countDown));
            Controlled.invoke(l, "await", l::await);
            Controlled.join(w);
        });
    }

    @Test
    void aTimedAwaitTimesOutInLogicalTime() {
        run(() -> {
            ModelCountDownLatch l = new ModelCountDownLatch(1);
            Scenarios.assertTimesOut(3, () -> call(l, "await", () -> l.await(3, TimeUnit.SECONDS)));
            assertEquals(1, l.getCount());
        }).assertPass();
    }

    @Test
    void anInterruptEndsTheWait() {
        run(() -> {
            ModelCountDownLatch l = new ModelCountDownLatch(1);
            Scenarios.assertInterruptEndsTheWait(() -> Controlled.invoke(l, "await", l::await),
                    t -> Rt.getState(t, Controlled.site("CALL", "java.lang.Thread.getState")) == Thread.State.WAITING);
        }).assertPass();
    }
}
