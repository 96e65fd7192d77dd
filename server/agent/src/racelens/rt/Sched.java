package racelens.rt;

import java.util.concurrent.locks.LockSupport;

/**
 * The execution in progress and its turns: which controlled thread runs, the steps and decisions
 * so far, who decides (the choices of the request, the default rule or a {@link Pct}
 * scheduler), and how the CPU passes from one thread to the next. Exactly one controlled thread
 * runs at a time; the others wait in {@link #waitTurn} (parked) or are disabled by a
 * {@link Blocker}. Also the ends of an execution (outcome, first failure, teardown) as the
 * harness sees them.
 *
 * <p>State: the thread table, the turn, the step and decision counters, the RUN options and the
 * results. All plain static fields: only the running controlled thread reads or writes them,
 * and a switch publishes them through the volatile {@link #turn}. (The execution's number,
 * {@link Rt#epoch}, stays a public field of {@link Rt}: the models read it.)
 */
final class Sched {
    private Sched() {}

    /** A thread-state whose thread is null: never the current thread. */
    static final TS NOBODY = new TS(null, -1, -1);

    /** Spins (onSpinWait) before parking on a handoff; pays off when a core is idle. */
    static final int SPIN = Integer.getInteger("racelens.spin", 0);

    /** Debug: random delays at handoffs and arrivals, to expose races in the scheduler. */
    static final boolean JITTER = Boolean.getBoolean("racelens.jitter");

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
    /** RUN option {@code pct=}, {@code walk=} or {@code pos=}: it decides instead of choices. */
    static Online pct;
    static int[] choices = new int[0];
    static int decisions;
    static volatile TS[] threads = new TS[0];

    // ---- results
    static volatile boolean over;
    static String outcome;
    static Thread harness;
    static Throwable failure;
    static int failThread = -1;
    static String errorMessage;

    // =====================================================================================
    // Arrivals and the slow path of scheduling points (the fast path is in Rt)

    static void foreign(int site, Object o) {
        TS s = foreignMe();
        if (s == null) {
            Uncontrolled.ran(site);
        } else if (s.suppress == 0) {
            slowPoint(s, site, o);
        }
    }

    /**
     * The calling thread is not the current one: find its state. Uncontrolled threads get null;
     * a controlled thread arriving for the first time waits for its turn (its BEGIN step).
     */
    static TS foreignMe() {
        jitter();
        Lines.log("foreignMe");
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
    static TS me() {
        TS s = current;
        if (s.thread == Thread.currentThread()) {
            return s;
        }
        return foreignMe();
    }

    /** A scheduling point before a modelled operation; returns the caller's state or null. */
    static TS op(int site, Object o) {
        TS s = me();
        if (s != null && s.suppress == 0) {
            slowPoint(s, site, o);
        }
        return s;
    }

    /** Context switches so far in this execution (the turn handed to another thread). */
    static long switches;
    /**
     * Threads waiting at a yield ({@link Spinning}): their readiness changes with every step,
     * so while there are any, every point takes the slow path and recomputes who is enabled.
     */
    static int spinners;

    /**
     * A yield point ({@code Thread.yield}, {@code Thread.onSpinWait}). A thread that yields
     * again before any other thread took a step is spinning on a state nobody changed
     * ({@code while (!ready) Thread.onSpinWait();}): another iteration would read the same
     * values, so it waits at its point, disabled, until another thread takes a step, or until
     * nothing else can run and no timeout can fire. Without this, the default rule keeps the
     * spinning thread until the step bound, and a search tries one more iteration per run.
     * This is CHESS's assumption about yields (Musuvathi and Qadeer, "Fair stateless model
     * checking", PLDI 2008: a thread that yields waits for another to make progress), made a
     * block: the schedules in which a bounded spin (a local counter, no shared write) gives up
     * while another thread could still run are not explored.
     */
    static TS yieldOp(int site) {
        TS s = me();
        if (s == null || s.suppress != 0) {
            return s;
        }
        boolean spinning = s.yieldedAt == switches;
        s.yieldedAt = switches;
        if (spinning) {
            spinners++;
            try {
                gatedPoint(s, site, null, new Spinning(steps), false, (byte) 0, null, 0);
            } finally {
                spinners--;
            }
        } else {
            slowPoint(s, site, null);
        }
        return s;
    }

    /** A spinning thread's block ({@link #yieldOp}): over once any thread took a step, or released. */
    static final class Spinning extends Blocker {
        private final long at;
        boolean released;

        Spinning(long at) {
            this.at = at;
        }

        @Override
        public boolean ready(TS t) {
            return released || steps != at;
        }

        @Override
        public String describe(TS t) {
            return "spinning (yields) until another thread takes a step";
        }
    }

    /** Nothing can run and no timeout can fire: the spinning threads go on. Whether there were any. */
    private static boolean releaseSpinners() {
        boolean any = false;
        for (TS t : threads) {
            if (!t.finished && t.pointBlocker instanceof Spinning && !((Spinning) t.pointBlocker).released) {
                ((Spinning) t.pointBlocker).released = true;
                any = true;
            }
        }
        return any;
    }

    static void jitter() {
        if (JITTER) {
            LockSupport.parkNanos(java.util.concurrent.ThreadLocalRandom.current().nextInt(200_000));
        }
    }

    /** Debug invariant (-Dracelens.check=true): only the current thread runs the scheduler. */
    static void check(TS s, String where) {
        if (Lines.CHECK && (current != s || s.thread != Thread.currentThread()) && !over) {
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
        s.pendingObj = o;
        s.stackId = -1;
        if (pct != null) {
            pct.point(s, site, threads);
        }
        if (dirty || spinners > 0) {
            recompute();
        }
        if (s.chosen) {
            s.chosen = false; // chosen while waiting at this point: the decision is taken
        } else if (enabledCount > 1) {
            decide(s);
        }
        if (full) {
            Lines.appendE(s, site, o);
        }
        if (Trace.on) {
            Trace.point(steps, s.id, o, site);
        }
        steps++;
    }

    static void livelock(TS s) {
        end("livelock");
        throw new Abort("racelens: step bound reached");
    }

    // =====================================================================================
    // Decisions and switches

    static void recompute() {
        if (Lines.CHECK) {
            StringBuilder sb = new StringBuilder("recompute");
            for (TS t : threads) {
                sb.append(' ').append(t).append(t.finished ? "F" : "").append(t.blocker == null ? "" : t.blocker.ready(t) ? "r" : "b");
            }
            Lines.log(sb.toString());
        }
        int n = 0;
        for (TS t : threads) {
            boolean e = !t.finished && (t.blocker == null || t.blocker.ready(t)) && (t.pointBlocker == null || t.pointBlocker.ready(t));
            t.enabled = e;
            if (e) {
                n++;
            }
        }
        enabledCount = n;
        dirty = false;
        slow = full || n > 1 || pct != null || spinners > 0;
    }

    /** Model state changed in a way that may enable or disable a blocked thread. */
    static void changed() {
        if (nblocked > 0) {
            dirty = true;
            slow = true;
        }
    }

    /** Decision at a scheduling point of the running thread {@code s} (enabled). */
    private static void decide(TS s) {
        TS c = choose(s, s);
        if (c != s) {
            if (full) {
                Lines.appendB(s, "preempted");
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
            boolean busy = false;
            for (TS t : threads) {
                if (t.finished) {
                    continue;
                }
                busy |= t.blocker == null || !t.blocker.idle();
                if (t.blocker != null && t.timed && !t.timedOut && (first == null || t.deadline < first.deadline)) {
                    first = t;
                }
            }
            // An idle worker waiting for a delayed task (a timer, a scheduled executor) lets time
            // pass only while some thread still waits for something: when every live thread is
            // idle the test is over, and a periodic task would otherwise run until the step bound.
            if (first == null || !busy) {
                if (releaseSpinners()) {
                    continue;
                }
                endNoneEnabled();
                return null;
            }
            if (first.deadline > Clock.now) {
                Clock.now = first.deadline;
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
        return enabledCount > 1 ? choose(c, s) : c;
    }

    /**
     * The next decision, {@code s} having run the step before: PCT's choice, the request's, or
     * past its end the default rule's choice {@code byDefault} (unless it is asleep).
     */
    private static TS choose(TS byDefault, TS s) {
        int d = decisions++;
        TS c = byDefault;
        if (pct != null) {
            c = pct.pick(threads);
        } else if (d < choices.length) {
            c = byId(choices[d]);
            if (c == null || !c.enabled) {
                diverge(d, choices[d], Lines.enabledMask());
            }
        } else if (Sleep.any()) {
            c = Sleep.prefer(c, threads);
        }
        Lines.appendD(c.id, c.pendingSite, null, s.id);
        return c;
    }

    static void handTo(TS c) {
        Lines.log("handTo " + c);
        if (c != current) {
            switches++;
        }
        c.stackId = -1;
        if (!c.begun) {
            c.begun = true;
            if (Trace.on) {
                Trace.step(steps, c.id);
            }
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
                LockSupport.park(Rt.class); // the park blocker thread dumps show, as before the split
            }
        } finally {
            s.parkedByRt = false;
        }
        jitter();
        Lines.log("resumed " + s);
        if (s.abort) {
            throw new Abort("racelens: execution over");
        }
    }

    /**
     * Disables the running thread until {@code b} is ready (or the timeout fires). Returns when
     * the thread has been chosen to run again; the caller then completes its operation.
     */
    static void block(TS s, Blocker b, boolean timed, long nanos, boolean interruptible) {
        check(s, "block");
        if (over || s.abort) {
            // a thread that caught the Abort of an execution that is over (FutureTask.run does)
            throw new Abort("racelens: execution over");
        }
        s.blocker = b;
        s.stackId = -1;
        s.timed = timed;
        s.deadline = timed ? Clock.now + Math.max(0, nanos) : 0;
        s.timedOut = false;
        s.interruptible = interruptible;
        if (b.ready(s)) {
            s.blocker = null;
            return;
        }
        nblocked++;
        if (Trace.on) {
            Trace.thread(Trace.WRITE, s.id, Trace.STATE); // RUNNABLE to WAITING, BLOCKED, ... (Thread.getState)
        }
        Lines.log("block " + s + " on " + b.describe(s));
        if (full) {
            Lines.appendB(s, b.describe(s));
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
        if (Trace.on) {
            // the completion of the operation: its own effect, and if a timeout woke the
            // thread, a dependence on everything (it fired because nothing else could run)
            Trace.step(steps, s.id);
            Trace.thread(Trace.WRITE, s.id, Trace.STATE); // runnable again
            done(s);
        }
        steps++;
    }

    /**
     * A scheduling point whose operation can proceed only when {@code until} is ready (a monitor
     * or lock held by another thread, a live thread to join): while it is not, the thread waits
     * there disabled, without taking a step, and the step it takes once chosen is the operation.
     * {@code kind}/{@code eo}/{@code slot} is the operation's effect, for the trace of a thread
     * still waiting when the execution ends.
     */
    static void gatedPoint(TS s, int site, Object o, Blocker until, boolean interruptible, byte kind, Object eo, int slot) {
        check(s, "gatedPoint");
        if (over || s.abort) {
            throw new Abort("racelens: execution over");
        }
        s.timedOut = false;
        s.interruptible = interruptible;
        s.pointBlocker = until;
        s.doneKind = kind;
        s.doneObj = eo;
        s.doneSlot = slot;
        nblocked++;
        dirty = true;
        slow = true;
        try {
            if (!until.ready(s)) {
                s.pendingSite = site;
                s.pendingObj = o;
                s.stackId = -1;
                Lines.log("waits at its point " + s + ": " + until.describe(s));
                if (full) {
                    Lines.appendB(s, until.describe(s));
                }
                if (Trace.on) {
                    Trace.thread(Trace.WRITE, s.id, Trace.STATE); // waits from its last step on
                }
                TS next = pickNext(s);
                if (next == null) {
                    throw new Abort("racelens: execution over");
                }
                handTo(next);
                waitTurn(s);
                s.chosen = true; // the decision that chose it is taken
                slowPoint(s, site, o);
                if (Trace.on) {
                    Trace.thread(Trace.WRITE, s.id, Trace.STATE); // its step is the operation: runnable again
                }
                return;
            }
            slowPoint(s, site, o);
        } finally {
            s.pointBlocker = null;
            s.doneKind = 0;
            nblocked--;
        }
    }

    /** The completion effect {@code s} was given when it blocked (see {@link Rt#blockFor}). */
    private static void done(TS s) {
        if (s.doneKind != 0) {
            Trace.effect(s.doneKind, s.doneObj, s.doneSlot);
            s.doneKind = 0;
        }
        if (s.timedOut) {
            Trace.effect(Trace.GLOBAL, null, 0);
        }
    }

    // =====================================================================================
    // The thread table

    /**
     * Thread {@code t}, being started by a controlled thread of execution {@code epoch}, joins the
     * execution: the next number, enabled at site 0 (it has not run yet), a THREAD line.
     */
    static TS add(Thread t, int epoch) {
        TS[] old = threads;
        TS c = new TS(t, old.length, epoch);
        TS[] ts = java.util.Arrays.copyOf(old, old.length + 1);
        ts[c.id] = c;
        threads = ts;
        Lines.threadLine(c.id, t);
        if (pct != null) {
            pct.created(c);
        }
        enabledCount++;
        slow = true;
        dirty = true;
        return c;
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
    // Atomic calls and class initialisers (callBegin and callEnd are hot: in Rt)

    static void clinitEnter() {
        TS s = current;
        if (s.thread != Thread.currentThread()) {
            s = tsOf(Thread.currentThread());
            if (s == null) {
                return;
            }
        }
        s.suppress++;
    }

    static void clinitExit() {
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
                Blocker b = t.blocker != null ? t.blocker : t.pointBlocker;
                if (!t.finished && b != null) {
                    Lines.details.append("WAIT ").append(t.id).append(' ').append(Lines.esc(b.describe(t))).append('\n');
                }
            }
        }
        outcome = oc;
        Lines.flushE();
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
            boolean waiting = t.blocker != null && !t.blocker.idle() || t.pointBlocker != null;
            if (!t.finished && waiting && (t.id == 0 || !t.thread.isDaemon())) {
                stuck = true;
            }
        }
        end(stuck ? "deadlock" : "pass");
    }

    static void diverge(int d, int wanted, String enabled) {
        Lines.details.append("DIVERGED ").append(d).append(' ').append(wanted).append(' ').append(enabled).append('\n');
        if (Lines.CHECK) {
            Lines.dumpLogTo("divergence at decision " + d + ": wanted T" + wanted + ", enabled " + enabled);
        }
        end("divergence");
        throw new Abort("racelens: divergence");
    }

    /**
     * {@code System.exit} and friends in a controlled thread: outcome {@code exit}. Here rather
     * than in {@link Threads} or {@link Clock}: it ends the execution, like the step bound or a
     * divergence does.
     */
    static void exit(int status) {
        TS s = me();
        if (s == null) {
            System.exit(status);
            return;
        }
        Lines.details.append("EXIT ").append(status).append('\n');
        end("exit");
        throw new ExitError(status);
    }

    /** Records a failure of the calling controlled thread (the harness's thread 0). */
    static void failHere(Throwable e) {
        TS s = tsOf(Thread.currentThread());
        if (s != null && !s.abort) {
            fail(s, e);
        }
    }

    /** Records the first failure of the execution (thread {@code s} is running). */
    static void fail(TS s, Throwable e) {
        if (failure == null && !over) {
            failure = e;
            failThread = s.id;
        }
    }

    // =====================================================================================
    // The harness's side

    /** Starts a new execution with RUN options ({@code stacks}, a PCT scheduler or null). */
    static void begin(Thread t0, int maxStepsArg, boolean fullArg, int[] choicesArg, boolean stacksArg, Online pctArg, boolean traceArg) {
        Rt.epoch++;
        TS s0 = new TS(t0, 0, Rt.epoch);
        s0.begun = true;
        threads = new TS[] {s0};
        steps = 0;
        switches = 0;
        spinners = 0;
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
        Clock.reset();
        Monitors.reset();
        Trace.reset(traceArg);
        over = false;
        outcome = null;
        errorMessage = null;
        failure = null;
        failThread = -1;
        harness = Thread.currentThread();
        Lines.reset(t0);
        turn = s0;
        current = s0;
    }

    /** Waits until the execution ends or the deadline passes; true if it ended. */
    static boolean awaitEnd(long deadlineNanos) {
        while (!over) {
            long left = deadlineNanos - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            LockSupport.parkNanos(Rt.class, Math.min(left, 50_000_000L));
        }
        return true;
    }

    /** The running thread if the scheduler waits for it outside racelens (diagnostics). */
    static Thread runningThread() {
        TS t = turn;
        return t == null || t.parkedByRt ? null : t.thread;
    }

    /** Ends the execution from outside (watchdog or agent error) with a message for END. */
    static void endFromHarness(String oc, String message) {
        errorMessage = message;
        end(oc);
    }

    /** Names of the threads of this execution that are still alive (teardown diagnostics). */
    static String aliveThreads() {
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
    static boolean teardown(long timeoutMillis) {
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
}
