package racelens.rt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static racelens.rt.Controlled.site;
import static racelens.rt.Controlled.start;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Thread operations in the model ({@link Threads}, {@link ThreadStates}): {@code park} consumes
 * a permit an earlier {@code unpark} left or waits for one, and an interrupt ends it;
 * {@code getState} says {@code WAITING} while parked and {@code TIMED_WAITING} while sleeping;
 * {@code LockSupport.getBlocker} is the object given to {@code park}; the interrupt status is
 * the model's, never the real thread's.
 */
class ThreadsTest {
    private static Thread.State state(Thread t) {
        return Rt.getState(t, site("CALL", "java.lang.Thread.getState"));
    }

    @Test
    void parkConsumesAPermitGivenBeforeOrWaitsForOne() {
        List<String> log = new ArrayList<>();
        Controlled.run(() -> {
            Object blocker = new Object();
            Thread t = start("T1", () -> {
                Rt.park(site("PARK", "-")); // the permit given before it ran
                log.add("first");
                Rt.park(blocker, site("PARK", "-"));
                log.add("second");
            });
            Rt.unpark(t, site("UNPARK", "-")); // by the default rule, before T1 runs at all
            Controlled.yieldUntil(() -> state(t) == Thread.State.WAITING);
            assertEquals(List.of("first"), log, "the first park did not wait, the second does");
            assertSame(blocker, Rt.getBlocker(t, site("CALL", "java.util.concurrent.locks.LockSupport.getBlocker")));
            Rt.unpark(t, site("UNPARK", "-"));
            Controlled.join(t);
            assertEquals(List.of("first", "second"), log);
        }).assertPass();
    }

    @Test
    void anInterruptEndsAParkAndStaysSet() {
        Controlled.run(() -> {
            boolean[] seen = new boolean[2];
            Thread t = start("T1", () -> {
                Rt.park(site("PARK", "-"));
                seen[0] = Rt.isInterrupted(Thread.currentThread(), site("INTERRUPTED", "-"));
                seen[1] = Rt.interrupted(site("INTERRUPTED", "-")) && !Rt.interrupted(site("INTERRUPTED", "-"));
            });
            Controlled.yieldUntil(() -> state(t) == Thread.State.WAITING);
            Controlled.interrupt(t);
            assertFalse(t.isInterrupted(), "the real thread is never interrupted");
            Controlled.join(t);
            assertTrue(seen[0], "park returns with the status set");
            assertTrue(seen[1], "interrupted() clears it");
        }).assertPass();
    }

    @Test
    void aSleeperIsTimedWaitingUntilItsTimeComes() {
        Controlled.run(() -> {
            Thread t = start("T1", () -> Rt.sleep(1000, site("SLEEP", "-")));
            Controlled.yieldUntil(() -> state(t) == Thread.State.TIMED_WAITING);
            assertTrue(Rt.isAlive(t, site("ALIVE", "-")));
            Controlled.join(t);
            assertTrue(Rt.clock() >= 1_000_000_000L, "nothing else could run: the clock moved to its deadline");
        }).assertPass();
    }
}
