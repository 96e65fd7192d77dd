package racelens.rt.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static racelens.rt.Controlled.call;
import static racelens.rt.Controlled.run;
import static racelens.rt.Controlled.start;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import racelens.rt.Controlled;
import racelens.rt.Rt;
import racelens.rt.Scenarios;

/**
 * {@link ModelFutureTask} and {@link ModelPhaser} under the scheduler: {@code get} waits in the
 * model for the task's result or exception (in every schedule), times out in logical time, and
 * {@code cancel(true)} interrupts the running thread in the model; a phaser's parties advance
 * together phase by phase and the phase numbers are the JDK's. Outside an execution both are
 * the JDK's.
 */
class ModelFutureTaskAndPhaserTest {
    @Test
    void uncontrolledFutureTaskIsTheJdks() throws Exception {
        ModelFutureTask<Integer> f = new ModelFutureTask<>(() -> 6 * 7);
        assertFalse(f.isDone());
        f.run();
        assertEquals(42, f.get());
        assertTrue(f.toString().startsWith("java.util.concurrent.FutureTask@"), f.toString());
        assertThrows(TimeoutException.class, () -> new ModelFutureTask<>(() -> 1).get(1, TimeUnit.MILLISECONDS));
    }

    @Test
    void getWaitsForTheResultInEverySchedule() {
        Controlled.Explored e = Controlled.explore(500, out -> {
            int[] input = {0};
            ModelFutureTask<Integer> f = new ModelFutureTask<>(() -> input[0] * 2);
            input[0] = 21;
            start("runner", f::run);
            out.accept(call(f, "get", f::get));
        });
        assertTrue(e.all("pass"), e.results.toString());
        assertTrue(e.values.stream().allMatch(v -> (int) v == 42), e.values.toString());
    }

    @Test
    void getReportsTheTasksExceptionAndTimesOut() {
        run(() -> {
            ModelFutureTask<Integer> bad = new ModelFutureTask<>(() -> {
                throw new IllegalStateException("no");
            });
            ModelFutureTask<Integer> never = new ModelFutureTask<>(() -> 1);
            start("runner", bad::run);
            ExecutionException ex = assertThrows(ExecutionException.class, () -> call(bad, "get", bad::get));
            assertInstanceOf(IllegalStateException.class, ex.getCause());
            assertThrows(TimeoutException.class, () -> call(never, "get", () -> never.get(1, TimeUnit.SECONDS)));
            assertTrue(Rt.clock() >= TimeUnit.SECONDS.toNanos(1));
        }).assertPass();
    }

    @Test
    void cancelInterruptsTheRunnerInTheModel() {
        run(() -> {
            ModelCountDownLatch started = new ModelCountDownLatch(1);
            ModelCountDownLatch never = new ModelCountDownLatch(1);
            boolean[] interrupted = {false};
            ModelFutureTask<Void> f = new ModelFutureTask<>(() -> {
                started.countDown();
                try {
                    Controlled.invoke(never, "await", never::await);
                } catch (InterruptedException e) {
                    interrupted[0] = true;
                }
                return null;
            });
            Thread runner = start("runner", f::run);
            Controlled.invoke(started, "await", started::await);
            assertTrue((boolean) call(f, "cancel", () -> f.cancel(true)));
            Controlled.join(runner);
            assertTrue(interrupted[0], "the model's interrupt reached the waiting runner");
            assertThrows(CancellationException.class, () -> call(f, "get", f::get));
        }).assertPass();
    }

    @Test
    void uncontrolledPhaserIsTheJdks() {
        ModelPhaser p = new ModelPhaser(1);
        assertEquals(0, p.getPhase());
        assertEquals(1, p.arriveAndAwaitAdvance());
        assertEquals(1, p.register());
        assertEquals(2, p.getRegisteredParties());
    }

    @Test
    void partiesAdvanceTogetherInEverySchedule() {
        Controlled.Explored e = Controlled.explore(2000, out -> {
            ModelPhaser p = new ModelPhaser(2);
            List<String> log = new ArrayList<>();
            Controlled.Body party = () -> {
                for (int phase = 0; phase < 2; phase++) {
                    log.add("p" + phase);
                    assertEquals(phase + 1, (int) call(p, "arriveAndAwaitAdvance", p::arriveAndAwaitAdvance));
                }
            };
            Thread t = start("T1", party);
            party.run();
            Controlled.join(t);
            out.accept(List.of(log, p.getPhase()));
        });
        assertTrue(e.all("pass"), e.results.toString());
        assertTrue(e.results.size() > 1);
        for (Object v : e.values) {
            assertEquals(List.of(List.of("p0", "p0", "p1", "p1"), 2), v, "nobody starts a phase before both ended the last");
        }
    }

    @Test
    void aPartyThatNeverArrivesIsADeadlock() {
        Scenarios.assertDeadlock("waiting for phase 0 to end at", () -> {
            ModelPhaser p = new ModelPhaser(2);
            call(p, "arriveAndAwaitAdvance", p::arriveAndAwaitAdvance);
        });
    }
}
