package racelens.rt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static racelens.rt.Controlled.point;
import static racelens.rt.Controlled.start;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The scheduler ({@link Sched}, {@link Threads}) driven in process by {@link Controlled}: one
 * thread runs at a time, the default rule keeps the running thread, the choices of a request
 * preempt it, a choice naming a disabled thread is a divergence, and the ends of an execution
 * (pass, fail, deadlock, livelock, uncontrolled) are told apart. Also checks the harness itself:
 * the exploration reaches both outcomes of a lost update.
 */
class SchedTest {
    /** {@link Scenarios#twoLoggers} following {@code choices}: the order of the steps. */
    private static List<String> twoLoggers(int[] choices) {
        List<String> log = new ArrayList<>();
        Controlled.run(choices, Scenarios.twoLoggers(log)).assertPass();
        return log;
    }

    /** Thread 0 starts thread 1; each reaches one point; thread 0 joins. */
    private static Controlled.Result onePointEach(int... choices) {
        return Controlled.run(choices, () -> {
            Thread t = start("T1", Controlled::point);
            point();
            Controlled.join(t);
        });
    }

    @Test
    void defaultRuleKeepsTheRunningThreadUntilItBlocks() {
        assertEquals(List.of("0a", "0b", "1a", "1b"), twoLoggers(new int[0]));
    }

    @Test
    void aChoicePreemptsTheRunningThread() {
        // decision 0 is thread 0's first point after the start: thread 1 runs instead, and keeps
        // running by the default rule until it finishes
        assertEquals(List.of("1a", "1b", "0a", "0b"), twoLoggers(new int[] {1}));
        // back to thread 0 at thread 1's second point
        assertEquals(List.of("1a", "0a", "0b", "1b"), twoLoggers(new int[] {1, 1, 0}));
    }

    @Test
    void decisionsAreReportedAsDLinesWithTheEnabledThreads() {
        Controlled.Result r = onePointEach(1).assertPass();
        List<String> ds = r.lines("D ");
        assertTrue(ds.size() >= 1, r.toString());
        String[] first = ds.get(0).split(" ");
        assertEquals("1", first[2], "the chosen thread");
        assertEquals("3", first[4], "threads 0 and 1 enabled (hex mask)");
        assertTrue(r.response.contains("THREAD 1 T1\n"), r.response);
    }

    @Test
    void aChoiceOfADisabledThreadIsADivergence() {
        Controlled.Result r = onePointEach(7);
        assertEquals("divergence", r.outcome, r.toString());
        assertTrue(r.response.contains("DIVERGED 0 7 3"), r.response);
    }

    @Test
    void explorationFindsTheLostUpdate() {
        // read, point, write: the classic race; every schedule ends, and some lose an update
        Controlled.Explored e = Scenarios.sections(Scenarios.same(() -> Scenarios.Guard.NONE));
        assertTrue(e.all("pass"), e.results.toString());
        Set<Integer> counts = new TreeSet<>();
        e.values.forEach(v -> counts.add(((Scenarios.Sections) v).count()));
        assertEquals(Set.of(1, 2), counts);
        assertTrue(e.results.size() >= 3, "several schedules: " + e.results.size());
    }

    @Test
    void anAssertionInAThreadFailsTheExecution() {
        Controlled.Result r = Controlled.run(() -> {
            Thread t = start("T1", () -> {
                throw new IllegalStateException("boom");
            });
            Controlled.join(t);
        });
        assertEquals("fail", r.outcome, r.toString());
        assertInstanceOf(IllegalStateException.class, r.failure);
        assertEquals("boom", r.failure.getMessage());
    }

    @Test
    void aFailureOfThreadZeroIsReported() {
        Controlled.Result r = Controlled.run(() -> {
            throw new AssertionError("expected 2");
        });
        assertEquals("fail", r.outcome);
        assertEquals("expected 2", r.failure.getMessage());
    }

    @Test
    void theStepBoundEndsALoopAsLivelock() {
        Controlled.Result r = Controlled.run(new int[0], 50, () -> {
            for (;;) {
                point();
            }
        });
        assertEquals("livelock", r.outcome, r.toString());
        assertEquals(50, r.steps);
    }

    @Test
    void aThreadOutsideTheExecutionEndsItAsUncontrolled() {
        Controlled.Result r = Controlled.run(() -> {
            Thread rogue = new Thread(Controlled::point, "rogue"); // started without Rt.start
            rogue.start();
            rogue.join(60_000);
        });
        assertEquals("uncontrolled", r.outcome, r.toString());
        assertTrue(Rt.errorMessage().contains("\"rogue\""), Rt.errorMessage());
    }

    @Test
    void joinWaitsForTheThreadToFinish() {
        List<String> log = new ArrayList<>();
        Controlled.run(() -> {
            Thread t = start("T1", () -> {
                point();
                log.add("child");
            });
            Controlled.join(t);
            log.add("joined");
            assertEquals(Thread.State.TERMINATED, Rt.getState(t, Controlled.site("CALL", "java.lang.Thread.getState")));
        }).assertPass();
        assertEquals(List.of("child", "joined"), log);
    }
}
