package racelens.rt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static racelens.rt.Controlled.site;
import static racelens.rt.Controlled.start;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Model monitors ({@link Monitors}, {@link ThreadStates}): {@code synchronized} excludes in every
 * schedule, {@code wait} needs the monitor and releases it, which waiter {@code notify} wakes is
 * a scheduling choice (a D line with the candidates; both orders are explored, unlike a
 * condition's {@code signal}), and {@code getState}/{@code holdsLock} answer from the model.
 */
class MonitorsTest {
    private static void enter(Object o) {
        Rt.monitorEnter(o, site("LOCK", "-"));
    }

    private static Thread.State state(Thread t) {
        return Rt.getState(t, site("CALL", "java.lang.Thread.getState"));
    }

    @Test
    void synchronizedExcludesInEverySchedule() {
        Scenarios.assertExclusive(Scenarios.same(() -> {
            Object o = new Object();
            return new Scenarios.Guard(() -> enter(o), () -> Rt.monitorExit(o));
        }));
    }

    @Test
    void statesAndHeldMonitorsComeFromTheModel() {
        Controlled.run(() -> {
            Object o = new Object();
            assertThrows(IllegalMonitorStateException.class, () -> Rt.wait(o, site("WAIT", "-")));
            enter(o);
            assertTrue(Rt.holdsLock(o));
            assertFalse(Thread.holdsLock(o), "the JDK's monitor is not taken");
            Thread t = start("T1", () -> {
                enter(o);
                Rt.monitorExit(o);
            });
            Controlled.yieldUntil(() -> state(t) == Thread.State.BLOCKED);
            Rt.monitorExit(o);
            assertFalse(Rt.holdsLock(o));
            Controlled.join(t);
            assertEquals(Thread.State.TERMINATED, state(t));
        }).assertPass();
    }

    @Test
    void notifyChoosesAmongTheWaiters() {
        // too many schedules to run them all: search until the second waiter is woken first
        Controlled.Explored e = Controlled.search(2000, out -> {
            Object o = new Object();
            List<String> woken = new ArrayList<>();
            List<Thread> ts = Scenarios.startInTurn(List.of("A", "B"), name -> () -> {
                enter(o);
                Rt.wait(o, site("WAIT", "-"));
                woken.add(name);
                Rt.monitorExit(o);
            }, started -> started.stream().allMatch(t -> state(t) == Thread.State.WAITING));
            for (int i = 0; i < 2; i++) {
                enter(o);
                Rt.notify(o, site("NOTIFY", "-"));
                Rt.monitorExit(o);
                int n = i + 1;
                Controlled.yieldUntil(() -> woken.size() == n); // the woken one has run: no race to re-enter
            }
            Controlled.joinAll(ts);
            out.accept(String.join("", woken));
        }, "BA"::equals);
        assertTrue(e.all("pass"), e.results.toString());
        assertEquals(Set.of("AB", "BA"), new TreeSet<>(e.values), "either waiter may be woken first");
        assertTrue(e.results.stream().anyMatch(r -> r.lines("D ").stream().anyMatch(l -> l.split(" ")[5].equals("6"))),
                "a notify decision names its candidates, threads 1 and 2 (mask 6)");
    }
}
