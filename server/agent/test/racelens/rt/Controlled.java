package racelens.rt;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * Test harness: runs a body as thread 0 of a racelens execution inside the test's own JVM,
 * without the agent attached, through the same public {@link Rt} entry points the harness
 * ({@code racelens.agent.Main}) and instrumented code use. The test's code is not instrumented,
 * so it makes the calls the instrumenter would have inserted itself: {@link #call} (and
 * {@link #invoke}, without a result) brackets a call into a model as a {@code CALL} site
 * ({@code Rt.callBegin}/{@code Rt.callEnd}), {@link #start}/{@link #join} are
 * {@code Rt.start}/{@code Rt.join}, {@link #point} is a plain scheduling point, and the thread
 * bodies call {@code Rt.threadBegin}/{@code Rt.threadExit} (the patched {@code Thread.run} and
 * {@code Thread.exit} do that under the agent).
 *
 * <p>Schedules: a list of choices (thread numbers, one per decision), as the controller sends
 * in a RUN request; past its end the scheduler's default rule (keep the running thread, else
 * the lowest-numbered enabled one). {@link #explore} enumerates every schedule of a body by
 * depth-first search over the D lines of the responses, as a tiny controller would (without
 * its reduction: keep scenarios small); {@link #search} stops at the first wanted result.
 *
 * <p>One execution at a time (the scheduler's state is static): JUnit runs the tests of this
 * suite sequentially.
 */
public final class Controlled {
    private Controlled() {}

    /** Code that may throw anything (test assertions, InterruptedException). */
    public interface Body {
        void run() throws Throwable;
    }

    /** What one execution ended with. */
    public static final class Result {
        public final String outcome;
        public final Throwable failure;
        public final String response;
        public final int steps;
        public final int decisions;

        Result(String outcome, Throwable failure, String response, int steps, int decisions) {
            this.outcome = outcome;
            this.failure = failure;
            this.response = response;
            this.steps = steps;
            this.decisions = decisions;
        }

        /** The response's lines starting with {@code prefix} (e.g. {@code "D "}, {@code "WAIT "}). */
        public List<String> lines(String prefix) {
            List<String> out = new ArrayList<>();
            for (String l : response.split("\n")) {
                if (l.startsWith(prefix)) {
                    out.add(l);
                }
            }
            return out;
        }

        /** Fails the test unless the execution passed, with the body's own failure as the cause. */
        public Result assertPass() {
            if (!"pass".equals(outcome)) {
                throw new AssertionError("execution ended with " + outcome + "\n" + response, failure);
            }
            return this;
        }

        @Override
        public String toString() {
            return outcome + " after " + steps + " steps\n" + response;
        }
    }

    /** Generous hang guard for one execution (wall clock); a correct one takes milliseconds. */
    private static final long HANG_GUARD_NANOS = 20_000_000_000L;

    public static Result run(Body body) {
        return run(new int[0], 10_000, body);
    }

    public static Result run(int[] choices, Body body) {
        return run(choices, 10_000, body);
    }

    /** One execution of {@code body} following {@code choices}, bounded to {@code maxSteps}. */
    public static Result run(int[] choices, int maxSteps, Body body) {
        return run(choices, maxSteps, null, body);
    }

    /** One execution of {@code body} whose decisions the online scheduler {@code online} makes (RUN option {@code pct}). */
    public static Result run(Online online, Body body) {
        return run(new int[0], 10_000, online, body);
    }

    private static Result run(int[] choices, int maxSteps, Online online, Body body) {
        Thread t0 = new Thread(null, () -> {
            try {
                body.run();
            } catch (Abort a) {
                // the execution ended elsewhere (deadlock, divergence, step bound)
            } catch (Throwable e) {
                Rt.failHere(e);
            } finally {
                Rt.threadExit(Thread.currentThread());
            }
        }, "main", 0);
        Rt.begin(t0, maxSteps, false, choices, false, online, false);
        t0.start();
        if (!Rt.awaitEnd(System.nanoTime() + HANG_GUARD_NANOS)) {
            Rt.endFromHarness("timeout", "hang guard");
        }
        String outcome = Rt.outcome();
        Throwable failure = Rt.failure();
        if (!Rt.teardown(5000)) {
            throw new AssertionError("threads of the execution did not stop: " + Rt.aliveThreads());
        }
        StringBuilder sb = new StringBuilder();
        Rt.response(sb);
        return new Result(outcome, failure, sb.toString(), Rt.stepCount(), Rt.decisionCount());
    }

    // =====================================================================================
    // What instrumented code would call

    private static final Map<String, Integer> SITES = new HashMap<>();

    /** The site of operation {@code op} on {@code target}, registered once per JVM. */
    public static int site(String op, String target) {
        synchronized (SITES) {
            return SITES.computeIfAbsent(op + " " + target, k -> Sites.register("Test", "body", SITES.size() + 1, op, target));
        }
    }

    /** A plain scheduling point (as before a field access). */
    public static void point() {
        Rt.point(site("CALL", "test.Point.step"));
    }

    /** A scheduling point on {@code o} (as before a field access of {@code o}). */
    public static void point(Object o) {
        Rt.point(o, site("WRITE", "test.Shared.value"));
    }

    /**
     * {@code receiver.method(...)} as instrumented code calls a {@code java.util.concurrent}
     * method: a point {@code CALL <class>.<method>} (where a gated model may wait), then the
     * call as one atomic step.
     */
    public static <T> T call(Object receiver, String method, Callable<T> c) throws Exception {
        String owner = jdkName(receiver.getClass());
        Rt.callBegin(receiver, site("CALL", owner + "." + method));
        try {
            return c.call();
        } finally {
            Rt.callEnd();
        }
    }

    /** {@link #call} of a method without a result. */
    public static void invoke(Object receiver, String method, Body b) throws Exception {
        call(receiver, method, () -> {
            try {
                b.run();
            } catch (Exception | Error e) {
                throw e;
            } catch (Throwable t) {
                throw new AssertionError(t);
            }
            return null;
        });
    }

    /** The JDK class a model stands for (its first superclass outside racelens). */
    private static String jdkName(Class<?> c) {
        while (c.getName().startsWith("racelens.") && c.getSuperclass() != null) {
            c = c.getSuperclass();
        }
        return c.getName();
    }

    /** Starts a controlled thread named {@code name} that runs {@code body} (a START site). */
    public static Thread start(String name, Body body) {
        Thread t = thread(name, body);
        Rt.start(t, site("START", "-"));
        return t;
    }

    /**
     * A thread (not started) whose {@code run} does what the patched {@code Thread} does around
     * {@code body}: wait for its first turn, report an uncaught exception, tell its end.
     */
    static Thread thread(String name, Body body) {
        return new Thread(() -> {
            try {
                Rt.threadBegin();
                body.run();
            } catch (Abort a) {
                // unwound at the end of the execution
            } catch (Throwable e) {
                if (!Rt.uncaught(Thread.currentThread(), e)) {
                    Rt.failHere(e);
                }
            } finally {
                Rt.threadExit(Thread.currentThread());
            }
        }, name);
    }

    /** A thread factory for the model executors whose workers behave as under the agent ({@link #thread}). */
    public static java.util.concurrent.ThreadFactory workers(String prefix) {
        int[] n = {0};
        return r -> thread(prefix + ++n[0], r::run);
    }

    /**
     * Yields ({@code Thread.yield}, a spinning thread waits until another one takes a step)
     * until {@code cond} holds: lets the other threads run up to where they block.
     */
    public static void yieldUntil(java.util.function.BooleanSupplier cond) {
        while (!cond.getAsBoolean()) {
            Rt.yield(site("YIELD", "-"));
        }
    }

    /** {@code t.interrupt()} in the model. */
    public static void interrupt(Thread t) {
        Rt.interrupt(t, site("INTERRUPT", "-"));
    }

    /** {@code t.join()} in the model. */
    public static void join(Thread t) throws InterruptedException {
        Rt.join(t, site("JOIN", "-"));
    }

    /** {@link #join} of each of {@code ts}, in order. */
    public static void joinAll(List<Thread> ts) throws InterruptedException {
        for (Thread t : ts) {
            join(t);
        }
    }

    // =====================================================================================
    // Exhaustive exploration

    /** Every execution of an exploration, in the order they ran. */
    public static final class Explored {
        public final List<Result> results = new ArrayList<>();

        /** The value each execution reported last (null if none), in the same order. */
        public final List<Object> values = new ArrayList<>();

        public boolean all(String outcome) {
            return results.stream().allMatch(r -> r.outcome.equals(outcome));
        }
    }

    /** What {@link #explore} runs: a body that records its result through {@code out}. */
    public interface Scenario {
        void run(java.util.function.Consumer<Object> out) throws Throwable;
    }

    /**
     * Runs {@code scenario} under every schedule (depth-first over the decisions: at each
     * decision, every enabled thread the D line names), at most {@code limit} executions. The
     * value each execution reports last (through its consumer) is in {@link Explored#values}.
     */
    public static Explored explore(int limit, Scenario scenario) {
        return search(limit, scenario, v -> false);
    }

    /**
     * {@link #explore}, stopping after the first execution whose value {@code wanted} accepts
     * (for scenarios with too many schedules to run them all); fails after {@code limit}.
     */
    public static Explored search(int limit, Scenario scenario, java.util.function.Predicate<Object> wanted) {
        Explored out = new Explored();
        ArrayList<int[]> stack = new ArrayList<>();
        stack.add(new int[0]);
        while (!stack.isEmpty()) {
            if (out.results.size() >= limit) {
                throw new AssertionError("more than " + limit + " schedules");
            }
            int[] prefix = stack.remove(stack.size() - 1);
            Object[] value = new Object[1];
            Result r = run(prefix, () -> scenario.run(v -> value[0] = v));
            out.results.add(r);
            out.values.add(value[0]);
            if (wanted.test(value[0])) {
                break;
            }
            if (r.outcome.equals("divergence")) {
                throw new AssertionError("replay diverged: " + r);
            }
            List<String> ds = r.lines("D ");
            int[] taken = new int[ds.size()];
            for (int i = 0; i < ds.size(); i++) {
                taken[i] = Integer.parseInt(ds.get(i).split(" ")[2]);
            }
            for (int i = ds.size() - 1; i >= prefix.length; i--) {
                // the enabled threads, or for a notify the candidates of its wait set
                String[] d = ds.get(i).split(" ");
                String mask = d[5].equals("-") ? d[4] : d[5];
                int enabled = Integer.parseInt(mask, 16);
                for (int t = 0; t < 32; t++) {
                    if ((enabled & (1 << t)) != 0 && t != taken[i]) {
                        int[] next = java.util.Arrays.copyOf(taken, i + 1);
                        next[i] = t;
                        stack.add(next);
                    }
                }
            }
        }
        return out;
    }
}
