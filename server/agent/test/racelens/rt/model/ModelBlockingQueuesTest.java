package racelens.rt.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static racelens.rt.Controlled.call;
import static racelens.rt.Controlled.run;
import static racelens.rt.Controlled.start;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import racelens.rt.Controlled;
import racelens.rt.Rt;
import racelens.rt.Scenarios;

/**
 * The bounded blocking queues ({@link ModelLinkedBlockingQueue}, {@link ModelArrayBlockingQueue},
 * {@link ModelLinkedBlockingDeque}), through the {@code BlockingQueue} interface: outside an
 * execution the JDK's; under the scheduler a producer of a full queue and a consumer of an
 * empty one are disabled, elements arrive in FIFO order and the capacity is never exceeded in
 * any schedule, a consumer nobody feeds deadlocks, and timed operations time out in logical
 * time.
 */
class ModelBlockingQueuesTest {
    private static Supplier<BlockingQueue<Integer>> bounded(String kind, int capacity) {
        switch (kind) {
            case "linked": return () -> new ModelLinkedBlockingQueue<>(capacity);
            case "array": return () -> new ModelArrayBlockingQueue<>(capacity);
            case "deque": return () -> new ModelLinkedBlockingDeque<>(capacity);
            default: throw new IllegalArgumentException(kind);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"linked", "array", "deque"})
    void uncontrolledItIsTheJdksQueue(String kind) throws Exception {
        BlockingQueue<Integer> q = bounded(kind, 2).get();
        q.put(1);
        assertTrue(q.offer(2));
        assertFalse(q.offer(3), "full");
        assertFalse(q.offer(3, 1, TimeUnit.MILLISECONDS));
        assertEquals(0, q.remainingCapacity());
        assertEquals(1, q.take());
        assertEquals(2, q.poll(1, TimeUnit.MILLISECONDS));
        assertNull(q.poll(1, TimeUnit.MILLISECONDS));
        assertThrows(NullPointerException.class, () -> q.put(null));
        Scenarios.Outside producer = Scenarios.outside("producer", () -> q.put(7));
        assertEquals(7, q.take()); // waits in the JDK for the producer
        producer.endNormally();
    }

    @ParameterizedTest
    @ValueSource(strings = {"linked", "array", "deque"})
    void aCapacityOfOneKeepsOrderAndBoundInEverySchedule(String kind) {
        Supplier<BlockingQueue<Integer>> make = bounded(kind, 1);
        Controlled.Explored e = Controlled.explore(1000, out -> {
            BlockingQueue<Integer> q = make.get();
            int[] most = {0};
            Thread producer = start("P", () -> {
                for (int i = 1; i <= 3; i++) {
                    int v = i;
                    Controlled.invoke(q, "put", () -> q.put(v));
                    most[0] = Math.max(most[0], q.size());
                }
            });
            List<Integer> got = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                got.add(call(q, "take", q::take));
            }
            Controlled.join(producer);
            out.accept(List.of(got, most[0]));
        });
        assertTrue(e.all("pass"), e.results.toString());
        assertTrue(e.results.size() > 1);
        for (Object v : e.values) {
            assertEquals(List.of(List.of(1, 2, 3), 1), v);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"linked", "array", "deque"})
    void aConsumerNobodyFeedsDeadlocks(String kind) {
        Scenarios.assertDeadlock("waiting for an element of", () -> {
            BlockingQueue<Integer> q = bounded(kind, 4).get();
            call(q, "take", q::take);
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"linked", "array", "deque"})
    void aProducerOfAFullQueueWaitsForSpace(String kind) {
        Scenarios.assertDeadlock("waiting for space in", () -> {
            BlockingQueue<Integer> q = bounded(kind, 1).get();
            Controlled.invoke(q, "put", () -> q.put(1));
            Controlled.invoke(q, "put", () -> q.put(2));
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"linked", "array", "deque"})
    void timedOperationsTimeOutInLogicalTime(String kind) {
        run(() -> {
            BlockingQueue<Integer> q = bounded(kind, 1).get();
            assertNull(call(q, "poll", () -> q.poll(2, TimeUnit.SECONDS)));
            assertTrue(Rt.clock() >= TimeUnit.SECONDS.toNanos(2));
            assertTrue(call(q, "offer", () -> q.offer(1, 1, TimeUnit.SECONDS)));
            Scenarios.assertTimesOut(1, () -> call(q, "offer", () -> q.offer(2, 1, TimeUnit.SECONDS)));
            assertEquals(List.of(1), new ArrayList<>(q));
        }).assertPass();
    }
}
