package racelens.agent;

/**
 * The test run plainly, without the agent: the JVM's own threads, locks and clock. The
 * controller runs it when a failure may come from racelens rather than the program (a failure
 * on the schedule without preemptions, or one raised inside racelens's models), and compares.
 *
 * <p>Usage: {@code java -ea -cp racelens-agent.jar:<classpath> racelens.agent.Plain <spec> [<invocation>]}
 * with the spec of {@link TestSpec} and, for a parameterized or repeated test, the index of
 * the invocation to run (the spec's own, or the first, without one). The test runs once, as a fresh JVM runs it alone
 * ({@code @BeforeClass}, the test, {@code @AfterClass}); the last line on standard output is
 * {@code PLAIN pass} or {@code PLAIN fail <exception class> <message>} (the message escaped as
 * in PROTOCOL.md): the test's own failure, else the first exception that escaped a thread it
 * started (racelens counts those as failures too). A setup error is {@code PLAIN error <message>}. A test that exits the JVM or
 * hangs prints nothing; the controller tells those apart by the exit status and its time limit.
 */
public final class Plain {
    private Plain() {}

    public static void main(String[] args) {
        TestSpec.plain = true;
        String line;
        try {
            if (args.length != 1 && args.length != 2) {
                throw new TestSpec.SetupException("usage: racelens.agent.Plain junit:<class>#<method> | main:<class> [<invocation>]");
            }
            TestSpec test = TestSpec.prepare(args[0]);
            // As under racelens, an exception that escapes any thread of the test fails it.
            Throwable[] escaped = {null};
            Thread.setDefaultUncaughtExceptionHandler((t, e) -> {
                synchronized (escaped) {
                    if (escaped[0] == null) {
                        escaped[0] = e;
                    }
                }
            });
            java.util.Set<Thread> before = Thread.getAllStackTraces().keySet();
            Throwable err = test.runOnceWithClassLifecycle(test.invocation(args.length == 2 ? Integer.parseInt(args[1]) : -1));
            awaitThreadsOfTheTest(before);
            synchronized (escaped) {
                err = err != null ? err : escaped[0];
            }
            line = err == null ? "PLAIN pass" : "PLAIN fail " + err.getClass().getName() + " " + Main.esc(err.getMessage());
        } catch (TestSpec.SetupException e) {
            line = "PLAIN error " + Main.esc(e.getMessage());
        } catch (Throwable e) {
            line = "PLAIN error " + Main.esc(String.valueOf(e));
        }
        System.out.flush();
        System.out.println();
        System.out.println(line);
        System.out.flush();
        // Threads the test left behind must not keep the JVM alive.
        Runtime.getRuntime().halt(0);
    }

    /** Gives the threads the test started a second to end (their exceptions count, as under racelens). */
    private static void awaitThreadsOfTheTest(java.util.Set<Thread> before) throws InterruptedException {
        long deadline = System.nanoTime() + 1_000_000_000L;
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            long left = deadline - System.nanoTime();
            if (!before.contains(t) && t != Thread.currentThread() && left > 0) {
                t.join(Math.max(1, left / 1_000_000L));
            }
        }
    }
}
