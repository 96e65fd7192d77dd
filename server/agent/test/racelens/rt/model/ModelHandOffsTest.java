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
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import racelens.rt.Controlled;
import racelens.rt.Rt;
import racelens.rt.Scenarios;

/**
 * The hand-offs, {@link ModelExchanger} and {@link ModelSynchronousQueue}: under the scheduler a
 * thread waits in the model until its partner comes, each side gets the other's item in every
 * schedule, waiting for a partner who never comes is a deadlock (or, timed, a timeout in logical
 * time), and the queue's non-blocking operations need a waiting partner; outside an execution
 * they are the JDK's.
 */
class ModelHandOffsTest {
    @Test
    void uncontrolledExchangeIsTheJdks() throws Exception {
        ModelExchanger<String> x = new ModelExchanger<>();
        String[] got = new String[1];
        Scenarios.Outside t = Scenarios.outside("T", () -> got[0] = x.exchange("from T"));
        assertEquals("from T", x.exchange("from main"));
        t.endNormally();
        assertEquals("from main", got[0]);
        assertThrows(TimeoutException.class, () -> x.exchange("alone", 1, TimeUnit.MILLISECONDS));
    }

    @Test
    void bothSidesOfAnExchangeGetTheOthersItemInEverySchedule() {
        Controlled.Explored e = Controlled.explore(500, out -> {
            ModelExchanger<String> x = new ModelExchanger<>();
            String[] got = new String[1];
            Thread t = start("T1", () -> got[0] = call(x, "exchange", () -> x.exchange("b")));
            String mine = call(x, "exchange", () -> x.exchange("a"));
            Controlled.join(t);
            out.accept(mine + got[0]);
        });
        assertTrue(e.all("pass"), e.results.toString());
        assertTrue(e.results.size() > 1);
        assertTrue(e.values.stream().allMatch("ba"::equals), e.values.toString());
    }

    @Test
    void anExchangeWithoutPartnerDeadlocksOrTimesOut() {
        Scenarios.assertDeadlock("waiting for a partner at", () -> {
            ModelExchanger<String> x = new ModelExchanger<>();
            call(x, "exchange", () -> x.exchange("a"));
        });
        run(() -> {
            ModelExchanger<String> x = new ModelExchanger<>();
            assertThrows(TimeoutException.class, () -> call(x, "exchange", () -> x.exchange("a", 2, TimeUnit.SECONDS)));
            assertTrue(Rt.clock() >= TimeUnit.SECONDS.toNanos(2));
        }).assertPass();
    }

    @Test
    void synchronousQueueHandsEachItemToATakerInOrder() {
        Controlled.Explored e = Controlled.explore(1000, out -> {
            ModelSynchronousQueue<Integer> q = new ModelSynchronousQueue<>(true);
            Thread producer = start("P", () -> {
                for (int i = 1; i <= 2; i++) {
                    int v = i;
                    Controlled.invoke(q, "put", () -> q.put(v));
                }
            });
            List<Integer> got = new ArrayList<>();
            got.add(call(q, "take", q::take));
            got.add(call(q, "take", q::take));
            Controlled.join(producer);
            out.accept(got);
        });
        assertTrue(e.all("pass"), e.results.toString());
        assertTrue(e.values.stream().allMatch(List.of(1, 2)::equals), e.values.toString());
    }

    @Test
    void synchronousQueueNonBlockingOperationsNeedAPartner() {
        run(() -> {
            ModelSynchronousQueue<Integer> q = new ModelSynchronousQueue<>();
            assertFalse((boolean) call(q, "offer", () -> q.offer(1)), "nobody takes");
            assertNull(call(q, "poll", q::poll), "nobody puts");
            assertEquals(0, q.size());
            Thread taker = start("T", () -> assertEquals(5, (int) call(q, "take", q::take)));
            Controlled.yieldUntil(() -> Rt.getState(taker, Controlled.site("CALL", "java.lang.Thread.getState")) == Thread.State.WAITING);
            assertTrue((boolean) call(q, "offer", () -> q.offer(5)), "a taker waits");
            Controlled.join(taker);
            assertNull(call(q, "poll", () -> q.poll(1, TimeUnit.SECONDS)));
        }).assertPass();
    }
}
