package racelens.rt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * The scenarios several tests share, each written once: two threads through a critical section
 * explored in every schedule ({@link #sections}, {@link #assertExclusive}), two threads logging
 * two steps each ({@link #twoLoggers}), threads started in turn so that they queue in a known
 * order ({@link #startInTurn}), a controlled thread whose blocking call should end with a given
 * exception ({@link #startExpecting}, {@link #assertInterruptEndsTheWait}), a wait nobody ends
 * ({@link #assertDeadlock}, {@link #assertTimesOut}), and a plain JDK
 * thread outside any execution, for the models' uncontrolled behaviour ({@link #outside}).
 */
public final class Scenarios {
    private Scenarios() {}

    /** A generous hang guard for what a test waits for outside an execution (wall clock). */
    private static final long GUARD_MILLIS = 10_000;

    // =====================================================================================
    // Two threads

    /** How a thread enters and leaves a critical section: a lock, a permit, a monitor, or nothing. */
    public static final class Guard {
        final Controlled.Body enter;
        final Controlled.Body exit;

        public Guard(Controlled.Body enter, Controlled.Body exit) {
            this.enter = enter;
            this.exit = exit;
        }

        /** No guard at all: the sections race. */
        public static final Guard NONE = new Guard(() -> {}, () -> {});
    }

    /**
     * What one schedule of {@link #sections} ended with: the shared counter (2 unless an
     * update was lost) and the most threads inside their sections at once.
     */
    public record Sections(int count, int most) {}

    /** Both threads behind the same guard, a fresh one per execution. */
    public static Supplier<Guard[]> same(Supplier<Guard> guard) {
        return () -> {
            Guard g = guard.get();
            return new Guard[] {g, g};
        };
    }

    /**
     * Thread 0 and T1 each pass once through a critical section, thread 0 behind the first guard
     * and T1 behind the second ({@code guards} makes them afresh for each execution): inside,
     * each reads a shared counter, reaches a point, and writes it back incremented, a lost
     * update unless the sections exclude each other. Explores every schedule; the value of
     * each is its {@link Sections}.
     */
    public static Controlled.Explored sections(Supplier<Guard[]> guards) {
        return Controlled.explore(2000, out -> {
            Guard[] g = guards.get();
            int[] counter = {0};
            int[] inside = {0, 0}; // now, most at once
            Function<Guard, Controlled.Body> section = guard -> () -> {
                guard.enter.run();
                try {
                    inside[0]++;
                    inside[1] = Math.max(inside[1], inside[0]);
                    Controlled.point(counter);
                    int v = counter[0];
                    Controlled.point(counter);
                    counter[0] = v + 1;
                    inside[0]--;
                } finally {
                    guard.exit.run();
                }
            };
            inTwo(section.apply(g[0]), section.apply(g[1]));
            out.accept(new Sections(counter[0], inside[1]));
        });
    }

    /**
     * Asserts that the {@link #sections} behind {@code guards} exclude each other in every
     * schedule: each execution passes, never are both threads inside, no update is lost, and
     * there was more than one schedule to try.
     */
    public static void assertExclusive(Supplier<Guard[]> guards) {
        Controlled.Explored e = sections(guards);
        assertTrue(e.all("pass"), e.results.toString());
        assertTrue(e.results.size() > 1, "more than one schedule");
        assertTrue(e.values.stream().allMatch(new Sections(2, 1)::equals), e.values.toString());
    }

    /** Thread 0 starts T1 running {@code theirs}, runs {@code mine}, and joins T1. */
    public static void inTwo(Controlled.Body mine, Controlled.Body theirs) throws Throwable {
        Thread t = Controlled.start("T1", theirs);
        mine.run();
        Controlled.join(t);
    }

    /** Thread 0 starts T1, then both log two steps (T1 {@code 1a}, {@code 1b}; thread 0 {@code 0a}, {@code 0b}), each after a point; thread 0 joins. */
    public static Controlled.Body twoLoggers(List<String> log) {
        return () -> {
            Thread t = Controlled.start("T1", () -> {
                Controlled.point();
                log.add("1a");
                Controlled.point();
                log.add("1b");
            });
            Controlled.point();
            log.add("0a");
            Controlled.point();
            log.add("0b");
            Controlled.join(t);
        };
    }

    /**
     * Starts a controlled thread per name, running {@code body.apply(name)}; after each start,
     * yields until {@code queued} holds of the threads started so far, so that they arrive in
     * the order of {@code names}. Returns the threads, in that order.
     */
    public static List<Thread> startInTurn(List<String> names, Function<String, Controlled.Body> body,
            Predicate<List<Thread>> queued) {
        List<Thread> ts = new ArrayList<>();
        for (String name : names) {
            ts.add(Controlled.start(name, body.apply(name)));
            Controlled.yieldUntil(() -> queued.test(ts));
        }
        return ts;
    }

    /** A controlled thread whose call should end by throwing an exception of a given class. */
    public static final class Expecting {
        public final Thread thread;
        private final boolean[] threw;

        Expecting(Thread thread, boolean[] threw) {
            this.thread = thread;
            this.threw = threw;
        }

        /** Whether the call threw the expected exception (another one fails the execution). */
        public boolean threw() {
            return threw[0];
        }
    }

    /** Starts a controlled thread {@code name} making {@code call}, which should end by throwing {@code expected}. */
    public static Expecting startExpecting(String name, Class<? extends Throwable> expected, Controlled.Body call) {
        boolean[] threw = {false};
        Thread t = Controlled.start(name, () -> {
            try {
                call.run();
            } catch (Throwable e) {
                if (!expected.isInstance(e)) {
                    throw e;
                }
                threw[0] = true;
            }
        });
        return new Expecting(t, threw);
    }

    /**
     * Inside an execution: starts T1 making the blocking {@code call}, yields until
     * {@code blocked} holds of it, interrupts it, joins it, and asserts that the call ended with
     * {@code InterruptedException}.
     */
    public static void assertInterruptEndsTheWait(Controlled.Body call, Predicate<Thread> blocked) throws InterruptedException {
        Expecting t = startExpecting("T1", InterruptedException.class, call);
        Controlled.yieldUntil(() -> blocked.test(t.thread));
        Controlled.interrupt(t.thread);
        Controlled.join(t.thread);
        assertTrue(t.threw(), "the interrupt ended the wait with InterruptedException");
    }

    /**
     * Runs {@code body} as one execution and asserts that it ended in a deadlock in which thread
     * 0 waits as {@code waiting} says (the words of its WAIT line, e.g. {@code "waiting on latch"}).
     */
    public static Controlled.Result assertDeadlock(String waiting, Controlled.Body body) {
        Controlled.Result r = Controlled.run(body);
        assertEquals("deadlock", r.outcome, r.toString());
        assertTrue(r.response.contains("WAIT 0 " + waiting), r.response);
        return r;
    }

    /**
     * Inside an execution: asserts that the timed {@code call}, which nobody satisfies, gives up
     * (answers false) once logical time moved on by its timeout of {@code seconds}.
     */
    public static void assertTimesOut(long seconds, Callable<Boolean> call) throws Exception {
        long before = Rt.clock();
        assertFalse(call.call(), "nobody satisfies it: it gives up");
        assertTrue(Rt.clock() - before >= TimeUnit.SECONDS.toNanos(seconds), "the clock jumped to the deadline");
    }

    // =====================================================================================
    // Outside any execution

    /** A plain JDK thread, started outside any execution (as in {@code @BeforeClass}), running a body. */
    public static final class Outside {
        public final Thread thread;
        private volatile Throwable thrown;

        Outside(String name, Controlled.Body body) {
            thread = new Thread(() -> thrown = thrownBy(body), name);
            thread.start();
        }

        /** What {@code body} threw, null if nothing. */
        private static Throwable thrownBy(Controlled.Body body) {
            try {
                body.run();
                return null;
            } catch (Throwable e) {
                return e;
            }
        }

        /** Waits (hang guard) until the thread waits, parked in the JDK. */
        public Outside awaitParked() throws InterruptedException {
            long deadline = System.currentTimeMillis() + GUARD_MILLIS;
            while (thread.getState() != Thread.State.WAITING && thread.getState() != Thread.State.TIMED_WAITING) {
                assertTrue(thread.isAlive() && System.currentTimeMillis() < deadline, "not parked: " + thread.getState());
                Thread.sleep(1);
            }
            return this;
        }

        /** Joins the thread (hang guard) and returns what its body threw, null if nothing. */
        public Throwable end() throws InterruptedException {
            thread.join(GUARD_MILLIS);
            assertFalse(thread.isAlive(), thread.getName() + " still runs");
            return thrown;
        }

        /** Joins the thread and asserts that its body ended normally. */
        public void endNormally() throws InterruptedException {
            Throwable t = end();
            if (t != null) {
                throw new AssertionError(thread.getName() + " failed", t);
            }
        }

        /** Joins the thread and asserts that its body threw an exception of class {@code expected}. */
        public void endThrowing(Class<? extends Throwable> expected) throws InterruptedException {
            Throwable t = end();
            assertTrue(expected.isInstance(t), thread.getName() + " ended with " + t + ", not " + expected.getSimpleName());
        }
    }

    /** Starts a plain JDK thread {@code name} running {@code body} outside any execution. */
    public static Outside outside(String name, Controlled.Body body) {
        return new Outside(name, body);
    }
}
