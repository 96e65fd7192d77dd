package racelens.agent;

import java.util.concurrent.atomic.AtomicReference;

/**
 * Stress testing, the reference racelens is measured against: the test run again and again on a
 * plain JVM, without the agent (nothing instrumented, the OS schedules threads), until it fails,
 * hangs, or the time is up. Usage (the controller builds this command line):
 *
 * <pre>java -cp racelens-agent.jar:&lt;classpath&gt; racelens.agent.Stress &lt;test spec&gt; &lt;millis&gt;</pre>
 *
 * Prints one line, {@code STRESS <runs> <failing run or -> <millis> <what failed>}: a failure
 * is an exception escaping the test or any thread it started, or a run that does not end within
 * ten seconds (a deadlock or a lost wake-up: the JVM then exits, its threads being stuck).
 */
public final class Stress {
    private Stress() {}

    /** A run that takes longer than this is stuck. */
    private static final long HANG_MILLIS = 10_000;

    public static void main(String[] args) throws Throwable {
        if (args.length != 2) {
            System.err.println("usage: racelens.agent.Stress junit:<class>#<method>|main:<class> <millis>");
            System.exit(2);
        }
        TestSpec test = TestSpec.prepare(args[0]);
        Class.forName(test.cls.getName(), true, test.cls.getClassLoader());
        test.runAll(test.beforeAll);
        // Exceptions escaping threads the test started fail the run they happen in.
        AtomicReference<Throwable> escaped = new AtomicReference<>();
        Thread.setDefaultUncaughtExceptionHandler((t, e) -> escaped.compareAndSet(null, e));
        long start = System.nanoTime();
        long deadline = start + Long.parseLong(args[1]) * 1_000_000L;
        long runs = 0;
        String failed = null;
        while (System.nanoTime() < deadline && failed == null) {
            runs++;
            AtomicReference<Throwable> err = new AtomicReference<>();
            // a parameterized or repeated test: its first invocation, or the one the spec names
            Invocation inv = test.invocation(-1);
            Thread t0 = new Thread(() -> err.set(test.runOnce(inv)), "main");
            t0.setDaemon(true);
            t0.start();
            t0.join(HANG_MILLIS);
            if (t0.isAlive()) {
                failed = "hang: the test did not end within " + HANG_MILLIS / 1000 + " s";
            } else if (err.get() != null) {
                failed = err.get().toString();
            } else if (escaped.get() != null) {
                failed = "in another thread: " + escaped.get();
            }
        }
        long millis = (System.nanoTime() - start) / 1_000_000L;
        String what = failed == null ? "" : " " + Main.esc(failed);
        System.out.println("STRESS " + runs + " " + (failed == null ? "-" : String.valueOf(runs)) + " " + millis + what);
        System.out.flush();
        // Threads of a stuck run never end: do not wait for them.
        Runtime.getRuntime().halt(0);
    }
}
