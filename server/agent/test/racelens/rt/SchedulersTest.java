package racelens.rt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The online schedulers ({@link Online}): PCT ({@link Pct}) and the random walk and
 * partial-order sampling ({@link Sampler}), on hand-made thread tables: option parsing, only
 * enabled threads are picked, the same seed gives the same decisions (the controller replays
 * them), PCT runs the highest priority and its change point demotes the running thread. Then
 * PCT and the walk driving real executions ({@link Controlled}) through {@code Rt.begin}.
 */
class SchedulersTest {
    @Test
    void optionsNameTheirScheduler() {
        assertInstanceOf(Pct.class, Online.parse("pct=1/2/10/*"));
        assertInstanceOf(Sampler.class, Online.parse("walk=3"));
        assertInstanceOf(Sampler.class, Online.parse("pos=3"));
        assertNull(Online.parse("stacks"));
        assertThrows(IllegalArgumentException.class, () -> Online.parse("pct=1/2"));
        assertThrows(NumberFormatException.class, () -> Online.parse("walk=x"));
    }

    /** A table of {@code n} threads, each told to {@code o} as created. */
    private static TS[] created(Online o, int n) {
        TS[] ts = new TS[n];
        for (int i = 0; i < n; i++) {
            ts[i] = new TS(null, i, 0);
            o.created(ts[i]);
        }
        return ts;
    }

    /** The ids a scheduler picks in {@code rounds} decisions among {@code n} threads, with only {@code enabled} enabled. */
    private static List<Integer> picks(Online o, int n, Set<Integer> enabled, int rounds) {
        TS[] ts = created(o, n);
        for (TS t : ts) {
            t.enabled = enabled.contains(t.id);
        }
        List<Integer> out = new ArrayList<>();
        for (int i = 0; i < rounds; i++) {
            out.add(o.pick(ts).id);
        }
        return out;
    }

    @Test
    void theWalkPicksEnabledThreadsUniformlyAndReproducibly() {
        List<Integer> a = picks(Online.parse("walk=7"), 4, Set.of(1, 3), 200);
        assertEquals(Set.of(1, 3), new HashSet<>(a), "only enabled threads, and both of them");
        assertEquals(a, picks(Online.parse("walk=7"), 4, Set.of(1, 3), 200), "same seed, same walk");
        assertNotEquals(a, picks(Online.parse("walk=8"), 4, Set.of(1, 3), 200));
        long ones = a.stream().filter(x -> x == 1).count();
        assertTrue(ones > 60 && ones < 140, "roughly uniform: " + ones + " of 200");
    }

    @Test
    void samplingRunsTheHighestPriorityEnabledEvent() {
        List<Integer> a = picks(Online.parse("pos=5"), 3, Set.of(0, 2), 50);
        assertTrue(Set.of(0, 2).containsAll(a), a.toString());
        assertEquals(a, picks(Online.parse("pos=5"), 3, Set.of(0, 2), 50));
    }

    @Test
    void pctRunsTheHighestPriorityAndDemotesAtAChangePoint() {
        // depth 2, horizon 1: one change point, at the first scheduling point
        Pct pct = Pct.parse("11/2/1/*");
        TS[] ts = created(pct, 3);
        TS best = ts[0];
        for (TS t : ts) {
            best = t.priority > best.priority ? t : best;
        }
        assertSame(best, pct.pick(ts), "the highest priority runs");
        pct.point(best, 0, ts);
        assertTrue(best.priority < 1.0, "demoted below every initial priority (1..2)");
        assertNotEquals(best, pct.pick(ts));
        for (TS t : ts) {
            t.enabled = t == best;
        }
        assertSame(best, pct.pick(ts), "still runs when it is the only enabled one");
    }

    @Test
    void pctWithDepthOneNeverChangesPriorities() {
        Pct pct = Pct.parse("11/1/100/*");
        TS[] ts = created(pct, 2);
        double p0 = ts[0].priority;
        for (int i = 0; i < 100; i++) {
            pct.point(ts[0], 0, ts);
        }
        assertEquals(p0, ts[0].priority);
    }

    /** The order of the steps of {@link Scenarios#twoLoggers} that {@code o} made. */
    private static String order(Online o) {
        List<String> log = new ArrayList<>();
        Controlled.run(o, Scenarios.twoLoggers(log)).assertPass();
        return String.join(" ", log);
    }

    @Test
    void onlineSchedulersDriveExecutionsReproducibly() {
        Set<String> walks = new HashSet<>();
        for (int seed = 0; seed < 20; seed++) {
            String a = order(Online.parse("walk=" + seed));
            assertEquals(a, order(Online.parse("walk=" + seed)), "seed " + seed);
            walks.add(a);
        }
        assertTrue(walks.size() > 2, "different seeds, different interleavings: " + walks);
        for (int seed = 0; seed < 5; seed++) {
            String a = order(Online.parse("pct=" + seed + "/3/10/*"));
            assertEquals(a, order(Online.parse("pct=" + seed + "/3/10/*")));
        }
    }
}
