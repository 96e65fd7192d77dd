package racelens.rt;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;

/**
 * The runtime half of racelens: the scheduler and the model of monitors and threads. Instrumented
 * application code calls the public static methods below. Exactly one controlled thread runs at a
 * time; the others wait in {@link #waitTurn} (parked) or are disabled by a {@link Blocker}.
 *
 * <p>All scheduler state is plain static fields: only the running controlled thread reads or
 * writes them, and a switch publishes them through the volatile {@link #turn}.
 */
public final class Rt {
    private Rt() {}

    static final long BASE_NANOS = 1_000_000_000_000L;
    static final long BASE_MILLIS = 1_700_000_000_000L;

    /** A thread-state whose thread is null: never the current thread. */
    static final TS NOBODY = new TS(null, -1, -1);

    /** Spins (onSpinWait) before parking on a handoff; pays off when a core is idle. */
    static final int SPIN = Integer.getInteger("racelens.spin", 0);

    // ---- the execution in progress (plain fields, owned by the running thread)
    static TS current = NOBODY;
    static volatile TS turn;
    /** True when a scheduling point must take the slow path: dirty, >1 enabled, or full mode. */
    static boolean slow;
    static int steps;
    static int maxSteps = Integer.MAX_VALUE;
    static long tickLimit = Long.MAX_VALUE;
    static boolean dirty;
    static int enabledCount;
    static int nblocked;
    static boolean full;
    /** RUN option {@code stacks}: pending entries carry interned application stacks. */
    static boolean stacks;
    /** RUN option {@code pct=...}: the PCT scheduler decides instead of choices. */
    static Pct pct;
    static int[] choices = new int[0];
    static int decisions;
    static volatile TS[] threads = new TS[0];
    public static int epoch;
    static long clock;
    static int randoms;
    static Random mathRandom;
    static IdentityHashMap<Object, Mon> mons = new IdentityHashMap<>();
    static IdentityHashMap<Object, String> labels = new IdentityHashMap<>();
    static int labelSeq;

    // ---- results
    static volatile boolean over;
    static String outcome;
    static Thread harness;
    static Throwable failure;
    static int failThread = -1;
    static final StringBuilder body = new StringBuilder(1 << 14);
    static final StringBuilder threadLines = new StringBuilder(256);
    static final StringBuilder siteLines = new StringBuilder(1024);
    static final StringBuilder details = new StringBuilder(1024);

    /** Binary names (dots) of instrumented application classes, for stack filtering. */
    public static final Set<String> APP_CLASSES = ConcurrentHashMap.newKeySet();

    // =====================================================================================
    // Scheduling points (the hot path)

    /** A scheduling point without an object (statics, calls, thread operations). */
    public static void point(int site) {
        TS s = current;
        if (s.thread != Thread.currentThread()) {
            foreign(site, null);
            return;
        }
        if (s.suppress != 0) {
            return;
        }
        s.pendingSite = site;
        if (slow) {
            slowPoint(s, site, null);
            return;
        }
        int st = steps;
        if (st >= maxSteps) {
            livelock(s);
        }
        steps = st + 1;
    }

    /** A scheduling point on an object (field or array access). */
    public static void point(Object o, int site) {
        TS s = current;
        if (s.thread != Thread.currentThread()) {
            foreign(site, o);
            return;
        }
        if (s.suppress != 0) {
            return;
        }
        s.pendingSite = site;
        if (slow) {
            slowPoint(s, site, o);
            return;
        }
        int st = steps;
        if (st >= maxSteps) {
            livelock(s);
        }
        steps = st + 1;
    }

    /** Loop back edge: not a scheduling point, but bounds loops that have none. */
    public static void tick() {
        TS s = current;
        if (s.thread != Thread.currentThread()) {
            foreignMe();
            return;
        }
        if (s.suppress == 0 && ++s.ticks > tickLimit) {
            livelock(s);
        }
    }

    private static void foreign(int site, Object o) {
        TS s = foreignMe();
        if (s != null && s.suppress == 0) {
            slowPoint(s, site, o);
        }
    }

    /**
     * The calling thread is not the current one: find its state. Uncontrolled threads get null;
     * a controlled thread arriving for the first time waits for its turn (its BEGIN step).
     */
    static TS foreignMe() {
        jitter();
        log("foreignMe");
        Thread me = Thread.currentThread();
        for (TS t : threads) {
            if (t.thread == me) {
                if (t.abort) {
                    if (t.suppress != 0 || t.finished) {
                        return null;
                    }
                    throw new Abort("racelens: execution over");
                }
                if (t.suppress != 0) {
                    return t;
                }
                waitTurn(t); // its BEGIN step was counted when it was chosen (handTo)
                return t;
            }
        }
        return null;
    }

    /** The calling controlled thread, running (after waiting for its turn), or null if uncontrolled. */
    public static TS me() {
        TS s = current;
        if (s.thread == Thread.currentThread()) {
            return s;
        }
        return foreignMe();
    }

    /** A scheduling point before a modelled operation; returns the caller's state or null. */
    public static TS op(int site, Object o) {
        TS s = me();
        if (s != null && s.suppress == 0) {
            slowPoint(s, site, o);
        }
        return s;
    }

    static final boolean CHECK = Boolean.getBoolean("racelens.check");
    /** Debug: random delays at handoffs and arrivals, to expose races in the scheduler. */
    static final boolean JITTER = Boolean.getBoolean("racelens.jitter");

    /** Debug event log of the current execution (-Dracelens.check=true), printed by {@link #dumpLog}. */
    static final java.util.concurrent.ConcurrentLinkedQueue<String> LOG = new java.util.concurrent.ConcurrentLinkedQueue<>();

    static void log(String what) {
        if (CHECK) {
            LOG.add(System.nanoTime() % 100_000_000 + " " + Thread.currentThread().getName() + " " + what + " step=" + steps
                    + " turn=" + turn + " current=" + current);
        }
    }

    public static void dumpLog() {
        System.err.print(appendLog(new StringBuilder("racelens event log of the last execution:\n")));
    }

    private static StringBuilder appendLog(StringBuilder sb) {
        for (String l : LOG) {
            sb.append("  ").append(l).append('\n');
        }
        return sb;
    }

    /**
     * Debug: writes the thread states and the event log of this execution to
     * {@code racelens-<pid>-<epoch>.log} in the temp folder (the JVM's stderr is not shown).
     */
    static void dumpLogTo(String why) {
        StringBuilder sb = new StringBuilder(why).append('\n');
        for (TS t : threads) {
            sb.append(t).append(t.finished ? " finished" : "").append(" blocker=")
                    .append(t.blocker == null ? "-" : t.blocker.describe(t)).append(" state=").append(t.thread.getState()).append('\n');
        }
        appendLog(sb);
        try {
            java.nio.file.Files.writeString(java.nio.file.Path.of(System.getProperty("java.io.tmpdir"),
                    "racelens-" + ProcessHandle.current().pid() + "-" + epoch + ".log"), sb);
        } catch (java.io.IOException | RuntimeException e) {
            System.err.println("racelens: cannot write the debug log: " + e);
        }
    }

    static void jitter() {
        if (JITTER) {
            LockSupport.parkNanos(java.util.concurrent.ThreadLocalRandom.current().nextInt(200_000));
        }
    }

    /** Debug invariant (-Dracelens.check=true): only the current thread runs the scheduler. */
    static void check(TS s, String where) {
        if (CHECK && (current != s || s.thread != Thread.currentThread()) && !over) {
            new Throwable("racelens invariant broken in " + where + ": caller " + Thread.currentThread().getName()
                    + " ts " + s + " current " + current + " turn " + turn + " step " + steps).printStackTrace();
        }
    }

    static void slowPoint(TS s, int site, Object o) {
        check(s, "slowPoint");
        if (steps >= maxSteps) {
            livelock(s);
        }
        s.pendingSite = site;
        s.stackId = -1;
        if (pct != null) {
            pct.point(s, site, threads);
        }
        if (dirty) {
            recompute();
        }
        if (enabledCount > 1) {
            decide(s);
        }
        if (full) {
            flushE();
            body.append("E ").append(steps).append(' ').append(s.id).append(' ').append(site).append(' ')
                    .append(o == null ? "-" : label(o));
            Sites.announce(site, siteLines);
            String op = Sites.op[site];
            if (op.equals("READ") || op.equals("WRITE") || op.equals("AREAD") || op.equals("AWRITE")) {
                valueOf = s; // the value hook right after completes the line
            } else {
                body.append(" -\n");
            }
        }
        steps++;
    }

    /** The thread whose E line waits for its value (full mode). */
    static TS valueOf;

    private static void flushE() {
        if (valueOf != null) {
            valueOf = null;
            body.append(" -\n");
        }
    }

    private static boolean wantsValue() {
        TS v = valueOf;
        return v != null && v.thread == Thread.currentThread() && v == current;
    }

    private static void putValue(String v) {
        valueOf = null;
        body.append(' ');
        if (v.length() > 40) {
            v = v.substring(0, 40);
        }
        body.append(esc(v)).append('\n');
    }

    public static void value(int v) {
        if (full && wantsValue()) {
            putValue(Integer.toString(v));
        }
    }

    public static void value(boolean v) {
        if (full && wantsValue()) {
            putValue(v ? "true" : "false");
        }
    }

    public static void value(char v) {
        if (full && wantsValue()) {
            putValue(String.valueOf(v));
        }
    }

    public static void value(long v) {
        if (full && wantsValue()) {
            putValue(Long.toString(v));
        }
    }

    public static void value(float v) {
        if (full && wantsValue()) {
            putValue(Float.toString(v));
        }
    }

    public static void value(double v) {
        if (full && wantsValue()) {
            putValue(Double.toString(v));
        }
    }

    public static void value(Object v) {
        if (full && wantsValue()) {
            putValue(v == null ? "null" : v instanceof String ? (String) v : v instanceof Number || v instanceof Boolean
                    || v instanceof Character ? v.toString() : label(v));
        }
    }

    private static void livelock(TS s) {
        end("livelock");
        throw new Abort("racelens: step bound reached");
    }

    // =====================================================================================
    // Decisions and switches

    static void recompute() {
        if (CHECK) {
            StringBuilder sb = new StringBuilder("recompute");
            for (TS t : threads) {
                sb.append(' ').append(t).append(t.finished ? "F" : "").append(t.blocker == null ? "" : t.blocker.ready(t) ? "r" : "b");
            }
            log(sb.toString());
        }
        int n = 0;
        for (TS t : threads) {
            boolean e = !t.finished && (t.blocker == null || t.blocker.ready(t));
            t.enabled = e;
            if (e) {
                n++;
            }
        }
        enabledCount = n;
        dirty = false;
        slow = full || n > 1 || pct != null;
    }

    /** Model state changed in a way that may enable or disable a blocked thread. */
    public static void changed() {
        if (nblocked > 0) {
            dirty = true;
            slow = true;
        }
    }

    /** Decision at a scheduling point of the running thread {@code s} (enabled). */
    private static void decide(TS s) {
        int d = decisions++;
        TS c = s;
        if (pct != null) {
            c = pct.pick(threads);
        } else if (d < choices.length) {
            c = byId(choices[d]);
            if (c == null || !c.enabled) {
                diverge(d, choices[d], enabledMask());
            }
        }
        appendD(c.id, c.pendingSite, null, s.id);
        if (c != s) {
            if (full) {
                appendB(s, "preempted");
            }
            handTo(c);
            waitTurn(s);
        }
    }

    /**
     * The running thread {@code s} can no longer run (blocked or finished): choose the next one.
     * Fires timeouts when nobody is enabled. Returns null when the execution has ended.
     */
    static TS pickNext(TS s) {
        check(s, "pickNext");
        for (;;) {
            recompute();
            if (enabledCount > 0) {
                break;
            }
            TS first = null;
            for (TS t : threads) {
                if (!t.finished && t.blocker != null && t.timed && !t.timedOut
                        && (first == null || t.deadline < first.deadline)) {
                    first = t;
                }
            }
            if (first == null) {
                endNoneEnabled();
                return null;
            }
            if (first.deadline > clock) {
                clock = first.deadline;
            }
            first.timedOut = true;
            first.blocker.onTimeout(first);
        }
        TS c = null;
        for (TS t : threads) {
            if (t.enabled) {
                c = t;
                break;
            }
        }
        if (enabledCount > 1) {
            int d = decisions++;
            if (pct != null) {
                c = pct.pick(threads);
            } else if (d < choices.length) {
                c = byId(choices[d]);
                if (c == null || !c.enabled) {
                    diverge(d, choices[d], enabledMask());
                }
            }
            appendD(c.id, c.pendingSite, null, s.id);
        }
        return c;
    }

    private static void handTo(TS c) {
        log("handTo " + c);
        c.stackId = -1;
        if (!c.begun) {
            c.begun = true;
            steps++; // the BEGIN step of a thread that has not run yet
        }
        current = c;
        turn = c;
        LockSupport.unpark(c.thread);
        jitter();
    }

    static void waitTurn(TS s) {
        if (turn == s) {
            return;
        }
        for (int i = SPIN; i > 0; i--) {
            if (turn == s) {
                if (s.abort) {
                    throw new Abort("racelens: execution over");
                }
                return;
            }
            Thread.onSpinWait();
        }
        s.parkedByRt = true;
        try {
            while (turn != s) {
                if (s.abort) {
                    throw new Abort("racelens: execution over");
                }
                LockSupport.park(Rt.class);
            }
        } finally {
            s.parkedByRt = false;
        }
        jitter();
        log("resumed " + s);
        if (s.abort) {
            throw new Abort("racelens: execution over");
        }
    }

    /**
     * Disables the running thread until {@code b} is ready (or the timeout fires). Returns when
     * the thread has been chosen to run again; the caller then completes its operation.
     */
    public static void block(TS s, Blocker b, boolean timed, long nanos, boolean interruptible) {
        check(s, "block");
        s.blocker = b;
        s.stackId = -1;
        s.timed = timed;
        s.deadline = timed ? clock + Math.max(0, nanos) : 0;
        s.timedOut = false;
        s.interruptible = interruptible;
        if (b.ready(s)) {
            s.blocker = null;
            return;
        }
        nblocked++;
        log("block " + s + " on " + b.describe(s));
        if (full) {
            appendB(s, b.describe(s));
        }
        TS next;
        try {
            next = pickNext(s);
        } catch (Abort a) {
            nblocked--;
            throw a;
        }
        if (next == null) {
            throw new Abort("racelens: execution over");
        }
        if (next != s) {
            handTo(next);
            waitTurn(s);
        }
        s.blocker = null;
        nblocked--;
        steps++;
    }

    /** Blocks without timeout and without interruption. */
    public static void block(TS s, Blocker b) {
        block(s, b, false, 0, false);
    }

    static TS byId(int id) {
        TS[] ts = threads;
        return id >= 0 && id < ts.length ? ts[id] : null;
    }

    static TS tsOf(Thread t) {
        for (TS s : threads) {
            if (s.thread == t) {
                return s;
            }
        }
        return null;
    }

    // =====================================================================================
    // Trace lines

    private static void appendD(int thread, int site, String choiceMask, int running) {
        flushE();
        body.append("D ").append(steps).append(' ').append(thread).append(' ').append(site).append(' ');
        enabledMask(body);
        body.append(' ').append(choiceMask == null ? "-" : choiceMask).append(' ');
        if (running < 0) {
            body.append('-');
        } else {
            body.append(running);
        }
        body.append(' ');
        // pending sites of the enabled threads (or of the candidates of a notify decision)
        boolean firstOne = true;
        Sites.announce(site, siteLines);
        for (TS t : threads) {
            if (choiceMask == null ? t.enabled : t.blocker instanceof Notified && ((Notified) t.blocker).candidate) {
                if (!firstOne) {
                    body.append(',');
                }
                firstOne = false;
                body.append(t.id).append(':').append(t.pendingSite);
                Sites.announce(t.pendingSite, siteLines);
                if (stacks) {
                    body.append(':').append(Stacks.of(t, t == current, siteLines));
                }
            }
        }
        if (firstOne) {
            body.append('-');
        }
        body.append('\n');
    }

    static void appendB(TS s, String reason) {
        flushE();
        body.append("B ").append(steps).append(' ').append(s.id).append(' ').append(reason).append('\n');
    }

    static String enabledMask() {
        StringBuilder sb = new StringBuilder();
        enabledMask(sb);
        return sb.toString();
    }

    private static void enabledMask(StringBuilder out) {
        mask(out, false);
    }

    /** Hex bit mask of enabled threads (or of notify candidates). */
    static void mask(StringBuilder out, boolean candidates) {
        TS[] ts = threads;
        int digits = Math.max(1, (ts.length + 3) / 4);
        boolean leading = true;
        for (int dgt = digits - 1; dgt >= 0; dgt--) {
            int v = 0;
            for (int b = 3; b >= 0; b--) {
                int i = dgt * 4 + b;
                if (i < ts.length) {
                    TS t = ts[i];
                    boolean on = candidates ? t.blocker instanceof Notified && ((Notified) t.blocker).candidate : t.enabled;
                    if (on) {
                        v |= 1 << b;
                    }
                }
            }
            if (v == 0 && leading && dgt > 0) {
                continue;
            }
            leading = false;
            out.append(Character.forDigit(v, 16));
        }
    }

    /** Per-execution label of an object: simple class name, '@', order of first sight. */
    public static String label(Object o) {
        if (o == null) {
            return "null";
        }
        String l = labels.get(o);
        if (l == null) {
            String n = o.getClass().getName();
            int lambda = n.indexOf("$$Lambda");
            if (lambda >= 0) {
                n = "Lambda";
            } else {
                n = n.substring(n.lastIndexOf('.') + 1);
            }
            l = n + "@" + (++labelSeq);
            labels.put(o, l);
        }
        return l;
    }

    // =====================================================================================
    // Ends of executions

    static void end(String oc) {
        if (over) {
            return;
        }
        if (failure != null && ("pass".equals(oc) || "deadlock".equals(oc) || "livelock".equals(oc))) {
            oc = "fail";
        }
        if ("deadlock".equals(oc)) {
            for (TS t : threads) {
                if (!t.finished && t.blocker != null) {
                    details.append("WAIT ").append(t.id).append(' ').append(esc(t.blocker.describe(t))).append('\n');
                }
            }
        }
        outcome = oc;
        flushE();
        for (TS t : threads) {
            t.abort = true;
        }
        current = NOBODY;
        over = true;
        LockSupport.unpark(harness);
    }

    private static void endNoneEnabled() {
        boolean stuck = false;
        for (TS t : threads) {
            if (!t.finished && t.blocker != null && !t.blocker.idle() && (t.id == 0 || !t.thread.isDaemon())) {
                stuck = true;
            }
        }
        end(stuck ? "deadlock" : "pass");
    }

    private static void diverge(int d, int wanted, String enabled) {
        details.append("DIVERGED ").append(d).append(' ').append(wanted).append(' ').append(enabled).append('\n');
        if (CHECK) {
            dumpLogTo("divergence at decision " + d + ": wanted T" + wanted + ", enabled " + enabled);
        }
        end("divergence");
        throw new Abort("racelens: divergence");
    }

    /** Records a failure of the calling controlled thread (the harness's thread 0). */
    public static void failHere(Throwable e) {
        TS s = tsOf(Thread.currentThread());
        if (s != null && !s.abort) {
            fail(s, e);
        }
    }

    /** Thread number of {@code t} in this execution, or -1. */
    public static int idOf(Thread t) {
        TS s = tsOf(t);
        return s == null ? -1 : s.id;
    }

    /** Records the first failure of the execution (thread {@code s} is running). */
    public static void fail(TS s, Throwable e) {
        if (failure == null && !over) {
            failure = e;
            failThread = s.id;
        }
    }

    static String esc(String s) {
        if (s == null) {
            return "";
        }
        if (s.indexOf('\n') < 0 && s.indexOf('\\') < 0 && s.indexOf('\r') < 0) {
            return s;
        }
        return s.replace("\\", "\\\\").replace("\r", "").replace("\n", "\\n");
    }

    // =====================================================================================
    // The harness's side

    /** Starts a new execution whose thread 0 is {@code t0} (not started yet). */
    public static void begin(Thread t0, int maxStepsArg, boolean fullArg, int[] choicesArg) {
        begin(t0, maxStepsArg, fullArg, choicesArg, false, null);
    }

    /** Starts a new execution with RUN options ({@code stacks}, a PCT scheduler or null). */
    public static void begin(Thread t0, int maxStepsArg, boolean fullArg, int[] choicesArg, boolean stacksArg, Pct pctArg) {
        epoch++;
        TS s0 = new TS(t0, 0, epoch);
        s0.begun = true;
        threads = new TS[] {s0};
        steps = 0;
        maxSteps = maxStepsArg;
        tickLimit = Math.max(1_000_000L, 1000L * maxStepsArg);
        full = fullArg;
        choices = choicesArg;
        decisions = 0;
        dirty = false;
        enabledCount = 1;
        nblocked = 0;
        stacks = stacksArg;
        pct = pctArg;
        if (pct != null) {
            pct.created(s0);
        }
        slow = full || pct != null;
        clock = 0;
        randoms = 0;
        mathRandom = null;
        mons = new IdentityHashMap<>();
        labels = new IdentityHashMap<>();
        labelSeq = 0;
        valueOf = null;
        over = false;
        outcome = null;
        errorMessage = null;
        failure = null;
        failThread = -1;
        body.setLength(0);
        threadLines.setLength(0);
        siteLines.setLength(0);
        details.setLength(0);
        harness = Thread.currentThread();
        LOG.clear();
        Sites.announce(0, siteLines);
        threadLines.append("THREAD 0 ").append(esc(t0.getName())).append('\n');
        turn = s0;
        current = s0;
    }

    /** Waits until the execution ends or the deadline passes; true if it ended. */
    public static boolean awaitEnd(long deadlineNanos) {
        while (!over) {
            long left = deadlineNanos - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            LockSupport.parkNanos(Rt.class, Math.min(left, 50_000_000L));
        }
        return true;
    }

    public static boolean isOver() {
        return over;
    }

    /** The running thread if the scheduler waits for it outside racelens (diagnostics). */
    public static Thread runningThread() {
        TS t = turn;
        return t == null || t.parkedByRt ? null : t.thread;
    }

    public static int stepCount() {
        return steps;
    }

    public static int decisionCount() {
        return decisions;
    }

    public static String outcome() {
        return outcome;
    }

    public static Throwable failure() {
        return failure;
    }

    public static int failThread() {
        return failThread;
    }

    static String errorMessage;

    /** Ends the execution from outside (watchdog or agent error) with a message for END. */
    public static void endFromHarness(String oc, String message) {
        errorMessage = message;
        end(oc);
    }

    public static String errorMessage() {
        return errorMessage;
    }

    /** Names of the threads of this execution that are still alive (teardown diagnostics). */
    public static String aliveThreads() {
        StringBuilder sb = new StringBuilder();
        for (TS t : threads) {
            if (t.thread.isAlive()) {
                sb.append(sb.length() == 0 ? "" : ", ").append(t.id).append(' ').append(t.thread.getName())
                        .append(" (").append(t.thread.getState()).append(')');
            }
        }
        return sb.toString();
    }

    /** Unwinds every thread of the execution; true when all of them are dead within the timeout. */
    public static boolean teardown(long timeoutMillis) {
        TS[] all = threads;
        for (TS t : all) {
            t.abort = true;
            LockSupport.unpark(t.thread);
        }
        // threads that finished in the model only run the JDK's Thread.exit() tail: no wait
        TS[] ts = java.util.Arrays.stream(all).filter(t -> !t.finished).toArray(TS[]::new);
        long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
        boolean interrupted = false;
        for (TS t : ts) {
            while (t.thread.isAlive()) {
                long left = (deadline - System.nanoTime()) / 1_000_000L;
                if (left <= 0) {
                    if (interrupted) {
                        return false;
                    }
                    interrupted = true;
                    for (TS u : ts) {
                        if (u.thread.isAlive()) {
                            u.thread.interrupt();
                        }
                    }
                    deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
                    continue;
                }
                LockSupport.unpark(t.thread);
                try {
                    t.thread.join(Math.min(left, 20));
                } catch (InterruptedException e) {
                    return false;
                }
            }
        }
        return true;
    }

    /** SITE and THREAD lines, trace, details; the caller adds END. */
    public static void response(StringBuilder out) {
        out.append(siteLines).append(threadLines).append(body).append(details);
    }

    /** Appends detail lines (the harness formats failures). */
    public static void detail(String line) {
        details.append(line).append('\n');
    }

    // =====================================================================================
    // Threads

    public static void start(Thread t, int site) {
        TS s = op(site, t);
        if (s == null || t.getState() != Thread.State.NEW) {
            t.start();
            return;
        }
        TS[] old = threads;
        TS c = new TS(t, old.length, s.epoch);
        TS[] ts = java.util.Arrays.copyOf(old, old.length + 1);
        ts[c.id] = c;
        threads = ts;
        threadLines.append("THREAD ").append(c.id).append(' ').append(esc(t.getName())).append('\n');
        if (pct != null) {
            pct.created(c);
        }
        enabledCount++;
        slow = true;
        dirty = true;
        s.suppress++;
        try {
            t.start();
            jitter();
        } finally {
            s.suppress--;
        }
    }

    /**
     * Called at the start of {@code Thread.run()} (patched) and of {@code run()} overrides of
     * application Thread subclasses: a started controlled thread waits here for its first turn,
     * so that it runs nothing (class loading and initialisation included) before it is chosen.
     */
    public static void threadBegin() {
        // Not `current`: the thread that chose this one writes `current` before the volatile
        // `turn`, and a new thread that saw only the first write would run alongside it (and
        // that thread's late `turn` write would later undo the next switch). Wait for `turn`.
        foreignMe();
    }

    /** Called (through the patched {@code Thread.exit()}) when any thread terminates. */
    public static void threadExit(Thread t) {
        TS s = current;
        if (s.thread != t) {
            s = tsOf(t);
            if (s == null || s.abort || s.finished) {
                return;
            }
            try {
                waitTurn(s);
            } catch (Abort a) {
                return;
            }
        }
        if (s.abort || s.finished) {
            return;
        }
        s.finished = true;
        log("finished " + s);
        if (full) {
            appendB(s, "finished");
        }
        changed();
        TS next = pickNext(s);
        if (next != null) {
            handTo(next);
        }
    }

    /** Called (through the patched {@code Thread.dispatchUncaughtException}); true = handled. */
    public static boolean uncaught(Thread t, Throwable e) {
        TS s = tsOf(t);
        if (s == null) {
            return false;
        }
        if (e instanceof Abort || s.abort || over) {
            return true;
        }
        if (current != s) {
            try {
                waitTurn(s);
            } catch (Abort a) {
                return true;
            }
        }
        if (t.getUncaughtExceptionHandler() != t.getThreadGroup() || Thread.getDefaultUncaughtExceptionHandler() != null) {
            return false; // the application installed a handler: it runs (as this thread's code)
        }
        fail(s, e);
        // The test has failed: stop here rather than run on (often a thread waiting for the
        // dead one until the step bound), so the report ends where the failure happened.
        end("fail");
        return true;
    }

    static final class JoinBlocker extends Blocker.Cond {
        final TS target;

        JoinBlocker(TS target) {
            this.target = target;
        }

        @Override
        protected boolean cond() {
            return target.finished;
        }

        @Override
        public String describe(TS t) {
            return "waiting for " + target.id + " to finish";
        }
    }

    public static void join(Thread t, int site) throws InterruptedException {
        joinTimed(t, 0, site);
    }

    public static void join(Thread t, long millis, int site) throws InterruptedException {
        if (millis < 0) {
            throw new IllegalArgumentException("timeout value is negative");
        }
        joinTimed(t, millis, site);
    }

    public static void join(Thread t, long millis, int nanos, int site) throws InterruptedException {
        if (millis < 0 || nanos < 0 || nanos > 999999) {
            throw new IllegalArgumentException("timeout value is negative or nanos out of range");
        }
        joinTimed(t, millis + (nanos > 0 ? 1 : 0), site);
    }

    private static void joinTimed(Thread t, long millis, int site) throws InterruptedException {
        TS s = op(site, t);
        TS target = s == null ? null : tsOf(t);
        if (target == null) {
            if (millis == 0) {
                t.join();
            } else {
                t.join(millis);
            }
            return;
        }
        checkInterrupt(s);
        if (target.finished) {
            return;
        }
        block(s, new JoinBlocker(target), millis > 0, millis * 1_000_000L, true);
        checkInterrupt(s);
    }

    private static void checkInterrupt(TS s) throws InterruptedException {
        if (s.interrupted) {
            s.interrupted = false;
            changed();
            throw new InterruptedException();
        }
    }

    static final class SleepBlocker extends Blocker.Cond {
        static final SleepBlocker INSTANCE = new SleepBlocker();

        @Override
        protected boolean cond() {
            return false;
        }

        @Override
        public String describe(TS t) {
            return "sleeping";
        }
    }

    public static void sleep(long millis, int site) throws InterruptedException {
        if (millis < 0) {
            throw new IllegalArgumentException("timeout value is negative");
        }
        TS s = op(site, null);
        if (s == null) {
            Thread.sleep(millis);
            return;
        }
        checkInterrupt(s);
        if (millis > 0) {
            block(s, SleepBlocker.INSTANCE, true, millis * 1_000_000L, true);
            checkInterrupt(s);
        }
    }

    public static void sleep(long millis, int nanos, int site) throws InterruptedException {
        sleep(millis + (nanos > 0 ? 1 : 0), site);
    }

    public static void yield(int site) {
        op(site, null);
    }

    public static void interrupt(Thread t, int site) {
        TS s = op(site, t);
        TS target = s == null ? null : tsOf(t);
        if (target == null) {
            t.interrupt();
            return;
        }
        target.interrupted = true;
        changed();
    }

    public static boolean isInterrupted(Thread t, int site) {
        TS s = op(site, t);
        TS target = s == null ? null : tsOf(t);
        return target == null ? t.isInterrupted() : target.interrupted;
    }

    public static boolean interrupted(int site) {
        TS s = op(site, null);
        if (s == null) {
            return Thread.interrupted();
        }
        boolean was = s.interrupted;
        if (was) {
            s.interrupted = false;
            changed();
        }
        return was;
    }

    public static boolean isAlive(Thread t, int site) {
        TS s = op(site, t);
        TS target = s == null ? null : tsOf(t);
        return target == null ? t.isAlive() : !target.finished;
    }

    // =====================================================================================
    // Park / unpark

    static final class ParkBlocker extends Blocker {
        static final ParkBlocker INSTANCE = new ParkBlocker();

        @Override
        public boolean ready(TS t) {
            return t.permit || t.interrupted || t.timedOut;
        }

        @Override
        public String describe(TS t) {
            return "parked";
        }
    }

    public static void park(int site) {
        parkTimed(false, 0, site);
    }

    public static void park(Object blocker, int site) {
        parkTimed(false, 0, site);
    }

    public static void parkNanos(long nanos, int site) {
        if (nanos > 0) {
            parkTimed(true, nanos, site);
        }
    }

    public static void parkNanos(Object blocker, long nanos, int site) {
        parkNanos(nanos, site);
    }

    public static void parkUntil(long deadlineMillis, int site) {
        parkTimed(true, Math.max(0, deadlineMillis - (BASE_MILLIS + clock / 1_000_000L)) * 1_000_000L, site);
    }

    public static void parkUntil(Object blocker, long deadlineMillis, int site) {
        parkUntil(deadlineMillis, site);
    }

    private static void parkTimed(boolean timed, long nanos, int site) {
        TS s = op(site, null);
        if (s == null) {
            if (timed) {
                LockSupport.parkNanos(nanos);
            } else {
                LockSupport.park();
            }
            return;
        }
        if (!s.permit && !s.interrupted) {
            block(s, ParkBlocker.INSTANCE, timed, nanos, true);
        }
        s.permit = false;
    }

    public static void unpark(Thread t, int site) {
        TS s = op(site, t);
        TS target = s == null || t == null ? null : tsOf(t);
        if (target == null) {
            LockSupport.unpark(t);
            return;
        }
        target.permit = true;
        changed();
    }

    // =====================================================================================
    // Monitors

    static Mon mon(Object o) {
        Mon m = mons.get(o);
        if (m == null) {
            m = new Mon(o);
            mons.put(o, m);
        }
        return m;
    }

    public static void monitorEnter(Object o, int site) {
        if (o == null) {
            throw new NullPointerException();
        }
        TS s = op(site, o);
        if (s == null) {
            return;
        }
        acquire(s, mon(o));
    }

    /** Acquires the model lock {@code m} for the running thread {@code s}, blocking while needed. */
    public static void acquire(TS s, Mon m) {
        m.fresh();
        while (m.owner != null && m.owner != s) {
            block(s, m);
        }
        m.owner = s;
        m.holds++;
        changed();
    }

    public static void monitorExit(Object o) {
        if (o == null) {
            throw new NullPointerException();
        }
        TS s = current;
        if (s.thread != Thread.currentThread()) {
            s = tsOf(Thread.currentThread());
            if (s == null || s.abort) {
                return;
            }
        }
        if (s.abort) {
            return;
        }
        release(s, mon(o));
    }

    public static void release(TS s, Mon m) {
        m.fresh();
        if (m.owner != s) {
            if (s.abort) {
                return;
            }
            throw new IllegalMonitorStateException("current thread is not owner");
        }
        if (--m.holds == 0) {
            m.owner = null;
            changed();
        }
    }

    /** Marks a thread in a wait set; {@code candidate} is set while it is in the set. */
    public static final class Notified extends Blocker {
        final Mon lock;
        final ArrayList<TS> set;
        final Object what;
        boolean candidate = true;

        Notified(Mon lock, ArrayList<TS> set, Object what) {
            this.lock = lock;
            this.set = set;
            this.what = what;
        }

        @Override
        public boolean ready(TS t) {
            boolean out = !candidate || (t.interruptible && t.interrupted);
            return out && (lock.owner == null || lock.owner == t);
        }

        @Override
        public void onTimeout(TS t) {
            leave(t);
        }

        void leave(TS t) {
            if (candidate) {
                candidate = false;
                set.remove(t);
            }
        }

        @Override
        public String describe(TS t) {
            if (candidate) {
                return "waiting on " + Rt.label(what);
            }
            return "blocked on lock " + Rt.label(lock.obj) + " held by " + (lock.owner == null ? "-" : lock.owner.id) + " (after wait)";
        }
    }

    /**
     * Waits in wait set {@code set} of lock {@code m} (held by {@code s}): releases the lock fully,
     * waits for notify/interrupt/timeout, re-acquires. Returns true unless it timed out.
     */
    public static boolean await(TS s, Mon m, ArrayList<TS> set, Object what, boolean timed, long nanos,
            boolean interruptible) throws InterruptedException {
        m.fresh();
        if (m.owner != s) {
            throw new IllegalMonitorStateException("current thread is not owner");
        }
        if (interruptible && s.interrupted) {
            s.interrupted = false;
            throw new InterruptedException();
        }
        int saved = m.holds;
        m.owner = null;
        m.holds = 0;
        Notified n = new Notified(m, set, what);
        set.add(s);
        changed();
        try {
            block(s, n, timed, nanos, interruptible);
        } finally {
            n.leave(s);
        }
        boolean timedOut = s.timedOut;
        // the lock is free or ours here (ready() checked it)
        m.owner = s;
        m.holds = saved;
        changed();
        if (interruptible && s.interrupted) {
            s.interrupted = false;
            throw new InterruptedException();
        }
        return !timedOut;
    }

    /** Wakes one waiter of {@code set}; the waiter is a scheduling choice when there are several. */
    public static void signal(TS s, ArrayList<TS> set, int site) {
        if (set.isEmpty()) {
            return;
        }
        TS w = set.get(0);
        if (set.size() > 1) {
            int d = decisions++;
            if (d < choices.length) {
                TS c = byId(choices[d]);
                if (c == null || !set.contains(c)) {
                    StringBuilder m = new StringBuilder();
                    mask(m, true);
                    diverge(d, choices[d], m.toString());
                }
                w = c;
            }
            StringBuilder m = new StringBuilder();
            mask(m, true);
            appendD(w.id, site, m.toString(), s.id);
        }
        ((Notified) w.blocker).leave(w);
        changed();
    }

    /** {@link #signal} at the site of the call the thread is in (j.u.c. conditions). */
    public static void signal(TS s, ArrayList<TS> set) {
        signal(s, set, s.pendingSite);
    }

    public static void signalAll(TS s, ArrayList<TS> set) {
        while (!set.isEmpty()) {
            TS w = set.get(0);
            ((Notified) w.blocker).leave(w);
        }
        changed();
    }

    private static Mon held(TS s, Object o) {
        Mon m = mon(o);
        m.fresh();
        if (m.owner != s) {
            throw new IllegalMonitorStateException("current thread is not owner");
        }
        return m;
    }

    public static void wait(Object o, int site) throws InterruptedException {
        TS s = op(site, o);
        if (s == null) {
            o.wait();
            return;
        }
        Mon m = held(s, o);
        await(s, m, m.waitSet, o, false, 0, true);
    }

    public static void wait(Object o, long millis, int site) throws InterruptedException {
        if (millis < 0) {
            throw new IllegalArgumentException("timeout value is negative");
        }
        TS s = op(site, o);
        if (s == null) {
            o.wait(millis);
            return;
        }
        Mon m = held(s, o);
        await(s, m, m.waitSet, o, millis > 0, millis * 1_000_000L, true);
    }

    public static void wait(Object o, long millis, int nanos, int site) throws InterruptedException {
        wait(o, millis + (nanos > 0 ? 1 : 0), site);
    }

    public static void notify(Object o, int site) {
        TS s = op(site, o);
        if (s == null) {
            o.notify();
            return;
        }
        Mon m = held(s, o);
        signal(s, m.waitSet, site);
    }

    public static void notifyAll(Object o, int site) {
        TS s = op(site, o);
        if (s == null) {
            o.notifyAll();
            return;
        }
        Mon m = held(s, o);
        signalAll(s, m.waitSet);
    }

    // =====================================================================================
    // Atomic calls, class initialisers

    /** Before a call into java.util / java.util.concurrent: a point, then no switches inside. */
    public static void callBegin(int site) {
        TS s = current;
        if (s.thread != Thread.currentThread()) {
            s = foreignMe();
            if (s == null) {
                return;
            }
            if (s.suppress == 0) {
                slowPoint(s, site, null);
            }
        } else if (s.suppress == 0) {
            s.pendingSite = site;
            if (slow) {
                slowPoint(s, site, null);
            } else {
                int st = steps;
                if (st >= maxSteps) {
                    livelock(s);
                }
                steps = st + 1;
            }
        }
        s.suppress++;
    }

    public static void callEnd() {
        TS s = current;
        if (s.thread != Thread.currentThread()) {
            s = tsOf(Thread.currentThread());
            if (s == null) {
                return;
            }
        }
        if (s.suppress > 0) {
            s.suppress--;
        }
        changed();
    }

    public static void clinitEnter() {
        TS s = current;
        if (s.thread != Thread.currentThread()) {
            s = tsOf(Thread.currentThread());
            if (s == null) {
                return;
            }
        }
        s.suppress++;
    }

    public static void clinitExit() {
        TS s = current;
        if (s.thread != Thread.currentThread()) {
            s = tsOf(Thread.currentThread());
            if (s == null) {
                return;
            }
        }
        if (s.suppress > 0) {
            s.suppress--;
        }
    }

    // =====================================================================================
    // Exit, time, randomness

    public static void exit(int status) {
        TS s = me();
        if (s == null) {
            System.exit(status);
            return;
        }
        details.append("EXIT ").append(status).append('\n');
        end("exit");
        throw new ExitError(status);
    }

    public static void halt(Runtime r, int status) {
        exit(status);
    }

    public static void exit(Runtime r, int status) {
        exit(status);
    }

    public static long nanoTime() {
        if (current.thread == Thread.currentThread()) {
            clock += 1000;
        }
        return BASE_NANOS + clock;
    }

    public static long currentTimeMillis() {
        if (current.thread == Thread.currentThread()) {
            clock += 1000;
        }
        return BASE_MILLIS + clock / 1_000_000L;
    }

    /** Logical time in nanoseconds since the start of the execution (for timed model operations). */
    public static long clock() {
        return clock;
    }

    public static long seed() {
        long n = current.thread == Thread.currentThread() ? ++randoms : 0;
        long z = 0x9E3779B97F4A7C15L * (n + 1);
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        return z ^ (z >>> 31);
    }

    public static double mathRandom() {
        if (current.thread != Thread.currentThread()) {
            return Math.random();
        }
        if (mathRandom == null) {
            mathRandom = new Random(42);
        }
        return mathRandom.nextDouble();
    }
}
