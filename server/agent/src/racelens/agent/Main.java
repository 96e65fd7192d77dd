package racelens.agent;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.lang.reflect.Field;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import racelens.agent.instrument.Transformer;
import racelens.rt.Abort;
import racelens.rt.Rt;

/**
 * The harness: connects to the controller, prepares the test, then runs one execution per RUN
 * request, each in a fresh thread (thread 0) under the scheduler. See PROTOCOL.md.
 */
public final class Main {
    private Main() {}

    private static OutputStream out;
    private static int errorsReported;

    public static void main(String[] args) throws Exception {
        if (Agent.options == null) {
            System.err.println("racelens: run with -javaagent:racelens-agent.jar=port=<n>,token=<t>,instrument=<paths>");
            System.exit(2);
        }
        int port;
        try {
            port = Integer.parseInt(Agent.options.getOrDefault("port", ""));
        } catch (NumberFormatException e) {
            System.err.println("racelens: agent option port= is missing or not a number");
            System.exit(2);
            return;
        }
        String token = Agent.options.getOrDefault("token", "-");
        long timeoutMillis = Long.parseLong(Agent.options.getOrDefault("timeout", "10000"));
        Socket socket = new Socket(InetAddress.getLoopbackAddress(), port);
        socket.setTcpNoDelay(true);
        out = socket.getOutputStream();
        BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
        send("HELLO 1 " + token + "\n");

        TestSpec test;
        try {
            if (Agent.setupError != null) {
                throw new TestSpec.SetupException(Agent.setupError);
            }
            if (args.length != 1) {
                throw new TestSpec.SetupException("usage: racelens.agent.Main junit:<class>#<method> | main:<class>");
            }
            test = TestSpec.prepare(args[0]);
            // class initialisation runs once, outside any execution
            Class.forName(test.cls.getName(), true, test.cls.getClassLoader());
        } catch (TestSpec.SetupException e) {
            send("SETUP_ERROR " + esc(e.getMessage()) + "\n");
            socket.close();
            System.exit(1);
            return;
        } catch (Throwable e) {
            Throwable c = e instanceof ExceptionInInitializerError && e.getCause() != null ? e.getCause() : e;
            send("SETUP_ERROR " + esc("set-up of " + args[0] + " failed: " + c) + "\n");
            socket.close();
            System.exit(1);
            return;
        }
        TestSpec prepared = test;
        if (test.classRules == null || Transformer.resetsStatics()) {
            // With the statics of application classes re-initialised for every execution, the
            // class's lifecycle (@ClassRules, @BeforeClass, @AfterClass) runs in every execution.
            serve(prepared, in, socket, timeoutMillis, args[0]);
        } else {
            // JUnit 4's @ClassRules wrap the class's run: here, the whole JVM's
            Throwable e = test.classRules.run(null, null, null, () -> {
                serve(prepared, in, socket, timeoutMillis, args[0]);
                return null;
            });
            if (e != null) {
                System.err.println("racelens: a @ClassRule failed: " + e);
            }
        }
        socket.close();
        System.exit(0);
    }

    /**
     * {@code @BeforeClass}, READY (after one INVOCATION line per invocation of a test JUnit runs
     * more than once), one execution per RUN until QUIT, then {@code @AfterClass}; the last two
     * only when executions share the statics (the agent option {@code statics=keep}), else they
     * run in every execution.
     */
    private static void serve(TestSpec test, BufferedReader in, Socket socket, long timeoutMillis, String spec) throws IOException {
        boolean once = !Transformer.resetsStatics();
        try {
            if (once) {
                test.runAll(test.beforeAll);
            }
            if (!Transformer.ERRORS.isEmpty()) {
                throw new TestSpec.SetupException("instrumentation failed: " + Transformer.ERRORS.get(0));
            }
            errorsReported = Transformer.ERRORS.size();
        } catch (TestSpec.SetupException e) {
            send("SETUP_ERROR " + esc(e.getMessage()) + "\n");
            socket.close();
            System.exit(1);
            return;
        } catch (Throwable e) {
            Throwable c = e instanceof ExceptionInInitializerError && e.getCause() != null ? e.getCause() : e;
            send("SETUP_ERROR " + esc("set-up of " + spec + " failed: " + c) + "\n");
            socket.close();
            System.exit(1);
            return;
        }
        if (test.invocations != null) {
            for (Invocation inv : test.invocations) {
                send("INVOCATION " + inv.index + " " + esc(inv.display) + "\n");
            }
        }
        send("READY " + test.kind + " " + test.cls.getName() + "#" + test.name + "\n");

        for (;;) {
            String line = in.readLine();
            if (line == null || line.equals("QUIT")) {
                try {
                    if (once) {
                        test.runAll(test.afterAll);
                    }
                } catch (Throwable e) {
                    System.err.println("racelens: @AfterClass failed: " + e);
                }
                return;
            }
            if (line.startsWith("RUN ")) {
                run(test, line, timeoutMillis);
            } else if (line.equals("DUMP")) {
                Rt.dumpLog(); // debugging aid (-Dracelens.check=true)
            } else if (!line.isEmpty()) {
                System.err.println("racelens: unknown request: " + line);
            }
        }
    }

    static void send(String s) throws IOException {
        out.write(s.getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    static String esc(String s) {
        if (s == null) {
            return "";
        }
        return s.replace("\\", "\\\\").replace("\r", "").replace("\n", "\\n");
    }

    /** {@code -Dracelens.profile=FILE}: where an execution's time goes, appended to FILE. */
    private static final String PROFILE = System.getProperty("racelens.profile");
    private static final Profile PROF = new Profile();

    /** Sums over executions, in nanoseconds: see {@link #run}. */
    private static final class Profile {
        long n, start, run, teardown, response, bytes, between, lastEnd;

        void write() {
            if (++n % 500 != 0) {
                return;
            }
            try (java.io.FileWriter w = new java.io.FileWriter(PROFILE, true)) {
                w.write(String.format("racelens profile after %d executions, per execution: begin and start %.1f us, execution %.1f us (begin and start included), teardown %.1f us, response %.1f us (%d bytes), between executions (controller, protocol) %.1f us%n",
                        n, start / 1e3 / n, run / 1e3 / n, teardown / 1e3 / n, response / 1e3 / n, bytes / n, between / 1e3 / Math.max(1, n - 1)));
            } catch (IOException e) {
                System.err.println("racelens: cannot write the profile: " + e);
            }
        }
    }

    private static Field threadInitNumber;

    /** Default thread names ("Thread-0", ...) restart in every execution. */
    private static void resetThreadNumbers() {
        try {
            if (threadInitNumber == null) {
                threadInitNumber = Thread.class.getDeclaredField("threadInitNumber");
                threadInitNumber.setAccessible(true);
            }
            synchronized (Thread.class) {
                threadInitNumber.setInt(null, 0);
            }
        } catch (ReflectiveOperationException | RuntimeException e) {
            // names stay nondeterministic; nothing else depends on them
        }
    }

    static void run(TestSpec test, String line, long timeoutMillis) throws IOException {
        String[] f = line.split(" ");
        String runId = f.length > 1 ? f[1] : "?";
        int maxSteps;
        boolean full;
        int[] choices;
        boolean stacks = false;
        boolean trace = false;
        boolean alloc = false;
        boolean stepSites = false;
        String sleep = null;
        racelens.rt.Online pct = null;
        int invocationIndex = -1;
        Invocation invocation;
        try {
            maxSteps = Integer.parseInt(f[2]);
            full = f[3].equals("full");
            if (!full && !f[3].equals("fast")) {
                throw new IllegalArgumentException("mode must be fast or full");
            }
            String c = f.length > 4 ? f[4] : "-";
            if (c.equals("-") || c.isEmpty()) {
                choices = new int[0];
            } else {
                String[] parts = c.split(",");
                choices = new int[parts.length];
                for (int i = 0; i < parts.length; i++) {
                    choices[i] = Integer.parseInt(parts[i]);
                }
            }
            if (f.length > 5) {
                for (String opt : f[5].split(",")) {
                    if (opt.equals("stacks")) {
                        stacks = true;
                    } else if (opt.equals("trace")) {
                        trace = true;
                    } else if (opt.equals("alloc")) {
                        alloc = true;
                    } else if (opt.equals("stepsites")) {
                        stepSites = true;
                    } else if (opt.startsWith("sleep=")) {
                        sleep = opt.substring(6);
                    } else if (opt.startsWith("invocation=")) {
                        invocationIndex = Integer.parseInt(opt.substring(11));
                    } else if (!opt.isEmpty()) {
                        pct = racelens.rt.Online.parse(opt);
                        if (pct == null) {
                            throw new IllegalArgumentException("unknown RUN option " + opt);
                        }
                    }
                }
            }
            Rt.sleep(sleep);
            invocation = test.invocation(invocationIndex);
        } catch (RuntimeException e) {
            send("END " + runId + " error 0 0 0 " + esc("bad request `" + line + "`: " + e.getMessage()) + "\n");
            return;
        }
        long t0 = System.nanoTime();
        if (PROF.lastEnd != 0) {
            PROF.between += t0 - PROF.lastEnd;
        }
        resetThreadNumbers();
        boolean classLifecycle = Transformer.resetsStatics();
        Thread thread0 = new Thread(null, () -> {
            Throwable err = classLifecycle ? test.runOnceWithClassLifecycle(invocation) : test.runOnce(invocation);
            if (err != null && !(err instanceof Abort)) {
                Rt.failHere(err);
            }
        }, "main", 0);
        Rt.recordAllocations(alloc);
        Rt.recordStepSites(stepSites);
        Rt.begin(thread0, maxSteps, full, choices, stacks, pct, trace);
        thread0.start();
        long tB = System.nanoTime();
        long deadline = t0 + timeoutMillis * 1_000_000L;
        boolean ended = waitForEnd(deadline);
        StringBuilder sb = new StringBuilder(4096);
        if (!ended) {
            Rt.response(sb);
            sb.append("END ").append(runId).append(" timeout ").append(Rt.stepCount()).append(' ')
                    .append(Rt.decisionCount()).append(' ').append((System.nanoTime() - t0) / 1_000_000L).append('\n');
            send(sb.toString());
            Runtime.getRuntime().halt(3);
        }
        String outcome = Rt.outcome();
        long tEnd = System.nanoTime();
        boolean dead = Rt.teardown(2000);
        long tTd = System.nanoTime();
        Rt.response(sb);
        long tResp = System.nanoTime();
        if (PROFILE != null) {
            PROF.start += tB - t0;
            PROF.run += tEnd - t0;
            PROF.teardown += tTd - tEnd;
            PROF.response += tResp - tTd;
            PROF.bytes += sb.length();
            PROF.write();
        }
        if (outcome.equals("fail") && Rt.failure() != null) {
            failLines(sb, Rt.failThread(), Rt.failure());
        }
        String error = outcome.equals("error") || outcome.equals("uncontrolled") ? Rt.errorMessage() : null;
        if (Transformer.ERRORS.size() > errorsReported) {
            error = "cannot instrument " + String.join("; ", Transformer.ERRORS.subList(errorsReported, Transformer.ERRORS.size()));
            errorsReported = Transformer.ERRORS.size();
            outcome = "error";
        }
        if (!dead) {
            error = "threads of this execution could not be stopped: " + Rt.aliveThreads();
            outcome = "error";
        }
        sb.append("END ").append(runId).append(' ').append(outcome).append(' ').append(Rt.stepCount()).append(' ')
                .append(Rt.decisionCount()).append(' ').append((System.nanoTime() - t0) / 1_000_000L);
        if (error != null) {
            sb.append(' ').append(esc(error));
        }
        sb.append('\n');
        send(sb.toString());
        PROF.lastEnd = System.nanoTime();
        if (!dead) {
            Runtime.getRuntime().halt(3);
        }
    }

    /**
     * Waits for the end of the execution. A controlled thread that holds the turn but sits in
     * BLOCKED/WAITING inside uninstrumented code for a second ends the execution with error.
     */
    static boolean waitForEnd(long deadline) {
        int lastSteps = -1;
        long stuckSince = 0;
        for (;;) {
            if (Rt.awaitEnd(Math.min(deadline, System.nanoTime() + 100_000_000L))) {
                return true;
            }
            long now = System.nanoTime();
            if (now >= deadline) {
                return false;
            }
            Thread r = Rt.runningThread();
            Thread.State st = r == null ? null : r.getState();
            boolean blocked = st == Thread.State.BLOCKED || st == Thread.State.WAITING || st == Thread.State.TIMED_WAITING;
            int steps = Rt.stepCount();
            if (blocked && steps == lastSteps) {
                if (stuckSince == 0) {
                    stuckSince = now;
                } else if (now - stuckSince > 1_000_000_000L) {
                    // the blocking call (the library frame the application called) and the application frames
                    StringBuilder where = new StringBuilder();
                    StackTraceElement[] stack = r.getStackTrace();
                    int firstApp = stack.length;
                    for (int i = 0; i < stack.length; i++) {
                        if (isApp(stack[i])) {
                            firstApp = i;
                            break;
                        }
                    }
                    int from = Math.max(0, firstApp - 1);
                    for (int i = from; i < Math.min(stack.length, from + 4); i++) {
                        where.append(i == from ? "" : " < ").append(stack[i].getClassName()).append('.')
                                .append(stack[i].getMethodName()).append(':').append(stack[i].getLineNumber());
                    }
                    Rt.endFromHarness("error", "thread " + Rt.idOf(r) + " is " + st + " inside code racelens does not model: " + where);
                    return true;
                }
            } else {
                stuckSince = 0;
            }
            lastSteps = steps;
        }
    }

    /**
     * FAIL and FRAME lines: application frames, and the library frame they called; a MODEL
     * line first when the exception was raised inside racelens's runtime or models (above the
     * first application frame), so that the controller can check such a failure against a
     * plain run of the test.
     */
    static void failLines(StringBuilder sb, int thread, Throwable e) {
        sb.append("FAIL ").append(thread).append(' ').append(e.getClass().getName()).append(' ')
                .append(esc(e.getMessage())).append('\n');
        StackTraceElement[] st = e.getStackTrace();
        int firstApp = -1;
        for (int i = 0; i < st.length; i++) {
            if (isApp(st[i])) {
                firstApp = i;
                break;
            }
        }
        for (int i = 0; i < (firstApp < 0 ? st.length : firstApp); i++) {
            if (st[i].getClassName().startsWith("racelens.rt.")) {
                sb.append("MODEL ").append(st[i].getClassName()).append(' ').append(st[i].getMethodName()).append(' ')
                        .append(st[i].getFileName() == null ? "-" : st[i].getFileName()).append(' ')
                        .append(Math.max(0, st[i].getLineNumber())).append('\n');
                break;
            }
        }

        if (firstApp < 0) {
            if (st.length > 0) {
                frame(sb, st[0]);
            }
            return;
        }
        for (int i = firstApp - 1; i >= 0; i--) {
            if (!st[i].getClassName().startsWith("racelens.")) {
                frame(sb, st[i]);
                break;
            }
        }
        for (int i = firstApp; i < st.length; i++) {
            if (isApp(st[i])) {
                frame(sb, st[i]);
            }
        }
    }

    static boolean isApp(StackTraceElement e) {
        return Rt.APP_CLASSES.contains(e.getClassName());
    }

    static void frame(StringBuilder sb, StackTraceElement e) {
        sb.append("FRAME ").append(e.getClassName()).append(' ').append(e.getMethodName()).append(' ')
                .append(e.getFileName() == null ? "-" : e.getFileName()).append(' ')
                .append(Math.max(0, e.getLineNumber())).append('\n');
    }
}
