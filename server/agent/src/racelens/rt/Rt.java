package racelens.rt;

import java.util.ArrayList;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The entry points of the runtime: instrumented application code, the models
 * ({@code racelens.rt.model}) and the harness call the public static methods below. The
 * instrumenter emits {@code INVOKESTATIC racelens/rt/Rt.<name><desc>}, so their names and
 * descriptors are a contract. Each hands over to the class that owns its concern: {@link Sched}
 * (the execution in progress and the turns), {@link Monitors} (locks and wait sets),
 * {@link Threads} (thread operations, park/unpark), {@link ThreadStates} (what the JDK's
 * introspection answers: thread states, held monitors, who waits), {@link Lines} (the protocol
 * lines) and {@link Clock} (logical time and randomness).
 *
 * <p>The exception: the calls at every field access of application code ({@link #point},
 * {@link #tick}, the fast path of {@link #callBegin}, the value hooks) do their fast path here,
 * on a few static fields of {@link Sched}, and call into it only when they cannot take it.
 *
 * <p>State: the two public fields the models and the agent read, {@link #epoch} and
 * {@link #APP_CLASSES}.
 */
public final class Rt {
    private Rt() {}

    /** Number of the execution in progress (advanced by {@link Sched#begin}); models and {@link Mon} reset lazily on it. */
    public static int epoch;

    /** Binary names (dots) of instrumented application classes, for stack filtering. */
    public static final Set<String> APP_CLASSES = ConcurrentHashMap.newKeySet();

    // =====================================================================================
    // Scheduling points (the hot path)

    /** A scheduling point without an object (statics, calls, thread operations). */
    public static void point(int site) {
        TS s = Sched.current;
        if (s.thread != Thread.currentThread()) {
            Sched.foreign(site, null);
            return;
        }
        if (s.suppress != 0) {
            if (Trace.on) {
                Trace.access(null, site); // inside an atomic JDK call or a class initialiser: the step's
            }
            return;
        }
        s.pendingSite = site;
        if (Sched.slow) {
            Sched.slowPoint(s, site, null);
            return;
        }
        int st = Sched.steps;
        if (st >= Sched.maxSteps) {
            Sched.livelock(s);
        }
        if (Trace.on) {
            Trace.point(st, s.id, null, site);
        }
        Sched.steps = st + 1;
    }

    /** A scheduling point on an object (field or array access). */
    public static void point(Object o, int site) {
        TS s = Sched.current;
        if (s.thread != Thread.currentThread()) {
            Sched.foreign(site, o);
            return;
        }
        if (s.suppress != 0) {
            if (Trace.on) {
                Trace.access(o, site);
            }
            return;
        }
        s.pendingSite = site;
        if (Sched.slow) {
            Sched.slowPoint(s, site, o);
            return;
        }
        int st = Sched.steps;
        if (st >= Sched.maxSteps) {
            Sched.livelock(s);
        }
        if (Trace.on) {
            Trace.point(st, s.id, o, site);
        }
        Sched.steps = st + 1;
    }

    /** Loop back edge: not a scheduling point, but bounds loops that have none. */
    public static void tick() {
        TS s = Sched.current;
        if (s.thread != Thread.currentThread()) {
            Sched.foreignMe();
            return;
        }
        if (s.suppress == 0 && ++s.ticks > Sched.tickLimit) {
            Sched.livelock(s);
        }
    }

    /** Before a static call into java.util / java.util.concurrent: a point, then no switches inside. */
    public static void callBegin(int site) {
        callBegin(null, site);
    }

    /**
     * Before a call into java.util / java.util.concurrent on {@code receiver}: a point (where a
     * model whose operation cannot proceed keeps the thread waiting, see {@link Gated}), then no
     * switches inside.
     */
    public static void callBegin(Object receiver, int site) {
        TS s = Sched.current;
        if (s.thread != Thread.currentThread()) {
            s = Sched.foreignMe();
            if (s == null) {
                Uncontrolled.ran(site);
                return;
            }
            if (s.suppress == 0) {
                if (!gateCall(s, receiver, site)) {
                    Sched.slowPoint(s, site, receiver);
                }
            } else if (Trace.on) {
                Trace.access(receiver, site);
            }
        } else if (s.suppress == 0) {
            s.pendingSite = site;
            s.pendingObj = receiver;
            if (gateCall(s, receiver, site)) {
                s.suppress++;
                return;
            }
            if (Sched.slow) {
                Sched.slowPoint(s, site, receiver);
            } else {
                int st = Sched.steps;
                if (st >= Sched.maxSteps) {
                    Sched.livelock(s);
                }
                if (Trace.on) {
                    Trace.point(st, s.id, receiver, site);
                }
                Sched.steps = st + 1;
            }
        } else if (Trace.on) {
            Trace.access(receiver, site);
        }
        s.suppress++;
    }

    /** A call on a {@link Gated} model that may wait at its point: its point, waiting; true if so. */
    private static boolean gateCall(TS s, Object receiver, int site) {
        if (!(receiver instanceof Gated)) {
            return false;
        }
        Gated.Gate g = ((Gated) receiver).gate(s, site);
        if (g == null) {
            return false;
        }
        s.pendingObj = receiver;
        Sched.gatedPoint(s, site, receiver, g.until, false, g.shared ? Trace.READ : Trace.ACQUIRE, g.lock, Trace.LOCK);
        return true;
    }

    /** An object or array the application just allocated: named for the trace ({@link Trace#born}). */
    public static void born(Object o) {
        TS s = Sched.current;
        if (s.thread == Thread.currentThread()) {
            Trace.born(o, s);
        }
    }

    /** The same, at the allocation's {@code NEW} site (recorded with RUN option {@code alloc}). */
    public static void born(Object o, int site) {
        TS s = Sched.current;
        if (s.thread == Thread.currentThread()) {
            Trace.born(o, s);
            if (Trace.allocs) {
                Trace.allocatedAt(o, site);
            }
        }
    }

    /** RUN option {@code stepsites} for the next execution: report every step's site (an S line). */
    public static void recordStepSites(boolean on) {
        Trace.stepSitesNext = on;
    }

    /** RUN option {@code alloc} for the next execution: report objects' allocation sites (N lines). */
    public static void recordAllocations(boolean on) {
        Trace.allocsNext = on;
    }

    /** {@code System.arraycopy}: not a scheduling point, but it reads one array and writes another. */
    public static void arraycopy(Object src, int srcPos, Object dst, int dstPos, int length) {
        if (Trace.on && Sched.current.thread == Thread.currentThread()) {
            Trace.effect(Trace.READ, src, Trace.ARRAY);
            Trace.effect(Trace.WRITE, dst, Trace.ARRAY);
        }
        System.arraycopy(src, srcPos, dst, dstPos, length);
    }

    public static void callEnd() {
        TS s = Sched.current;
        if (s.thread != Thread.currentThread()) {
            s = Sched.tsOf(Thread.currentThread());
            if (s == null) {
                return;
            }
        }
        if (s.suppress > 0) {
            s.suppress--;
        }
        Sched.changed();
    }

    /**
     * What a re-run class initialiser that threw becomes ({@code StaticReset}), as the JVM
     * reports a failing {@code <clinit>}: an Error as it is, anything else wrapped.
     */
    public static Error initializerFailed(Throwable t) {
        return t instanceof Error ? (Error) t : new ExceptionInInitializerError(t);
    }

    public static void clinitEnter() {
        Sched.clinitEnter();
    }

    public static void clinitExit() {
        Sched.clinitExit();
    }

    // ---- value hooks: after each field or array access; they complete its E line (full mode)

    public static void value(int v) {
        if (Sched.full && Lines.wantsValue()) {
            Lines.putValue(Integer.toString(v));
        }
    }

    public static void value(boolean v) {
        if (Sched.full && Lines.wantsValue()) {
            Lines.putValue(v ? "true" : "false");
        }
    }

    public static void value(char v) {
        if (Sched.full && Lines.wantsValue()) {
            Lines.putValue(String.valueOf(v));
        }
    }

    public static void value(long v) {
        if (Sched.full && Lines.wantsValue()) {
            Lines.putValue(Long.toString(v));
        }
    }

    public static void value(float v) {
        if (Sched.full && Lines.wantsValue()) {
            Lines.putValue(Float.toString(v));
        }
    }

    public static void value(double v) {
        if (Sched.full && Lines.wantsValue()) {
            Lines.putValue(Double.toString(v));
        }
    }

    public static void value(Object v) {
        if (Sched.full && Lines.wantsValue()) {
            Lines.putValue(Lines.valueText(v));
        }
    }

    // =====================================================================================
    // For the models: the calling thread, scheduling points, blocking, changes

    /** The calling controlled thread, running (after waiting for its turn), or null if uncontrolled. */
    public static TS me() {
        return Sched.me();
    }

    /** A scheduling point before a modelled operation; returns the caller's state or null. */
    public static TS op(int site, Object o) {
        return Sched.op(site, o);
    }

    /**
     * Disables the running thread until {@code b} is ready (or the timeout fires). Returns when
     * the thread has been chosen to run again; the caller then completes its operation.
     */
    public static void block(TS s, Blocker b, boolean timed, long nanos, boolean interruptible) {
        Sched.block(s, b, timed, nanos, interruptible);
    }

    /** Blocks without timeout and without interruption. */
    public static void block(TS s, Blocker b) {
        Sched.block(s, b, false, 0, false);
    }

    /**
     * {@link #block} inside an operation on model object {@code what}: the step that completes
     * the operation changes {@code what} (for the trace).
     */
    public static void blockOn(TS s, Blocker b, boolean timed, long nanos, boolean interruptible, Object what) {
        s.doneKind = Trace.WRITE;
        s.doneObj = what;
        s.doneSlot = Trace.CALL;
        Sched.block(s, b, timed, nanos, interruptible);
    }

    /** {@link #blockOn} for a wait whose completion only reads {@code what} (an idle worker looking for work). */
    public static void blockReading(TS s, Blocker b, boolean timed, long nanos, Object what) {
        s.doneKind = Trace.READ;
        s.doneObj = what;
        s.doneSlot = Trace.CALL;
        Sched.block(s, b, timed, nanos, false);
    }

    /** Model state changed in a way that may enable or disable a blocked thread. */
    public static void changed() {
        Sched.changed();
    }

    /** Records the first failure of the execution (thread {@code s} is running). */
    public static void fail(TS s, Throwable e) {
        Sched.fail(s, e);
    }

    /** Per-execution label of an object: simple class name, '@', order of first sight. */
    public static String label(Object o) {
        return Lines.label(o);
    }

    /** Logical time in nanoseconds since the start of the execution (for timed model operations). */
    public static long clock() {
        return Clock.now;
    }

    // =====================================================================================
    // For the models: who waits (the queue and wait-set queries of the JDK's classes)

    /**
     * The threads of this execution waiting to acquire model lock {@code m} (at a {@code lock()},
     * inside an acquisition, or again after a wait on one of its conditions), in thread order.
     */
    public static java.util.List<Thread> queuedOn(Mon m) {
        return ThreadStates.queuedOn(m);
    }

    /** The threads of this execution disabled by a blocker that matches {@code which}, in thread order. */
    public static java.util.List<Thread> waiting(java.util.function.Predicate<Blocker> which) {
        return ThreadStates.waiting(which);
    }

    /** The blockers matching {@code which} of the threads of this execution (a model's own queue order reads them). */
    public static java.util.List<Blocker> blockers(java.util.function.Predicate<Blocker> which) {
        return ThreadStates.blockers(which);
    }

    /** The running thread asks who waits for {@code lock} (or, with null, for a wait set): the effects of that read. */
    public static void queuesRead(Object lock) {
        ThreadStates.queuesRead(lock);
    }

    /** The threads of {@code set} (a wait set of a model condition), in the order they began to wait. */
    public static java.util.List<Thread> threadsOf(java.util.List<TS> set) {
        java.util.ArrayList<Thread> out = new java.util.ArrayList<>(set.size());
        for (TS t : set) {
            out.add(t.thread);
        }
        return out;
    }

    // =====================================================================================
    // Monitors and the lock models

    public static void monitorEnter(Object o, int site) {
        Monitors.monitorEnter(o, site);
    }

    public static void monitorExit(Object o) {
        Monitors.monitorExit(o);
    }

    /** Acquires the model lock {@code m} for the running thread {@code s}, blocking while needed. */
    public static void acquire(TS s, Mon m) {
        Monitors.acquire(s, m);
    }

    public static void release(TS s, Mon m) {
        Monitors.release(s, m);
    }

    /**
     * Waits in wait set {@code set} of lock {@code m} (held by {@code s}): releases the lock fully,
     * waits for notify/interrupt/timeout, re-acquires. Returns true unless it timed out.
     */
    public static boolean await(TS s, Mon m, ArrayList<TS> set, Object what, boolean timed, long nanos,
            boolean interruptible) throws InterruptedException {
        return Monitors.await(s, m, set, what, timed, nanos, interruptible, null);
    }

    /** {@link #await} on a condition of a fair lock: the waiter takes the lock again in {@code fair}'s order. */
    public static boolean await(TS s, Mon m, ArrayList<TS> set, Object what, boolean timed, long nanos,
            boolean interruptible, FairQueue fair) throws InterruptedException {
        return Monitors.await(s, m, set, what, timed, nanos, interruptible, fair);
    }

    /**
     * Wakes one waiter of {@code set} (the wait set of {@code what}); the waiter is a scheduling
     * choice when there are several.
     */
    public static void signal(TS s, ArrayList<TS> set, Object what, int site) {
        Monitors.signal(s, set, what, site);
    }

    /**
     * A {@code java.util.concurrent} condition's {@code signal}: the longest-waiting thread
     * wakes, as {@code AbstractQueuedSynchronizer.ConditionObject.signal} documents (unlike
     * {@code Object.notify}, which wakes any: a scheduling choice there).
     */
    public static void signal(TS s, ArrayList<TS> set, Object what) {
        Monitors.signalLongestWaiting(s, set, what);
    }

    public static void signalAll(TS s, ArrayList<TS> set, Object what) {
        Monitors.signalAll(s, set, what);
    }

    // =====================================================================================
    // For the models: what they do to shared state (trace mode, RUN option `trace`)

    private static boolean tracing() {
        return Trace.on && Sched.current.thread == Thread.currentThread() && !Sched.over;
    }

    /**
     * The running thread changed model object {@code o} outside a call from application code
     * (a worker finishing a task, a future completed by model code): an effect of its step.
     */
    public static void touch(Object o) {
        if (tracing()) {
            Trace.effect(Trace.WRITE, o, Trace.CALL);
        }
    }

    /** The running thread read the state of model object {@code o} outside a call from application code. */
    public static void touchRead(Object o) {
        if (tracing()) {
            Trace.effect(Trace.READ, o, Trace.CALL);
        }
    }

    /** The running thread took {@code lock} (exclusively, or shared with other readers). */
    public static void lockTaken(Object lock, boolean shared) {
        if (tracing()) {
            Trace.effect(shared ? Trace.READ : Trace.ACQUIRE, lock, Trace.LOCK);
        }
    }

    /** The running thread read the state of {@code lock} (is it locked, by whom). */
    public static void lockRead(Object lock) {
        if (tracing()) {
            Trace.effect(Trace.READ, lock, Trace.LOCK);
        }
    }

    /** The running thread released its hold of {@code lock}. */
    public static void lockReleased(Object lock) {
        if (tracing()) {
            Trace.effect(Trace.RELEASE, lock, Trace.LOCK);
        }
    }

    /** The simple name of the method call site {@code site} calls. */
    public static String callee(int site) {
        return Sites.callee(site);
    }

    public static void wait(Object o, int site) throws InterruptedException {
        Monitors.wait(o, site);
    }

    public static void wait(Object o, long millis, int site) throws InterruptedException {
        Monitors.wait(o, millis, site);
    }

    public static void wait(Object o, long millis, int nanos, int site) throws InterruptedException {
        Monitors.wait(o, millis, nanos, site);
    }

    public static void notify(Object o, int site) {
        Monitors.notify(o, site);
    }

    public static void notifyAll(Object o, int site) {
        Monitors.notifyAll(o, site);
    }

    // =====================================================================================
    // Threads

    public static void start(Thread t, int site) {
        Threads.start(t, site);
    }

    /** Called at the start of {@code Thread.run()} (patched) and of {@code run()} overrides: see {@link Threads#threadBegin}. */
    public static void threadBegin() {
        Threads.threadBegin();
    }

    /** Called (through the patched {@code Thread.start()}) when any thread is started: where, for reports. */
    public static void threadStarting(Thread t) {
        Uncontrolled.starting(t);
    }

    /** Called (through the patched {@code Thread.exit()}) when any thread terminates. */
    public static void threadExit(Thread t) {
        Threads.threadExit(t);
    }

    /** Called (through the patched {@code Thread.dispatchUncaughtException}); true = handled. */
    public static boolean uncaught(Thread t, Throwable e) {
        return Threads.uncaught(t, e);
    }

    public static void join(Thread t, int site) throws InterruptedException {
        Threads.join(t, site);
    }

    public static void join(Thread t, long millis, int site) throws InterruptedException {
        Threads.join(t, millis, site);
    }

    public static void join(Thread t, long millis, int nanos, int site) throws InterruptedException {
        Threads.join(t, millis, nanos, site);
    }

    public static void sleep(long millis, int site) throws InterruptedException {
        Threads.sleep(millis, site);
    }

    public static void sleep(long millis, int nanos, int site) throws InterruptedException {
        Threads.sleep(millis, nanos, site);
    }

    public static void yield(int site) {
        Threads.yield(site);
    }

    /** {@code t.interrupt()}; an override in the thread's class runs instead (its {@code super} call is {@link #interruptSuper}). */
    public static void interrupt(Thread t, int site) {
        if (Threads.overrides(t, Threads.INTERRUPT)) {
            t.interrupt();
        } else {
            Threads.interrupt(t, site);
        }
    }

    /** {@code super.interrupt()} in a thread class of the application. */
    public static void interruptSuper(Thread t, int site) {
        Threads.interrupt(t, site);
    }

    /** For the models: interrupts {@code t} as the running thread's model operation (no scheduling point). */
    public static void interruptNow(Thread t) {
        Threads.interruptNow(t);
    }

    /**
     * For the models' pool workers: clears the running thread's interrupt status before it runs
     * its next task, as the JDK's {@code ThreadPoolExecutor.runWorker} does (no scheduling point).
     */
    public static void clearInterrupt() {
        TS s = Sched.me();
        if (s != null && s.interrupted) {
            if (Trace.on) {
                Trace.thread(Trace.WRITE, s.id, Trace.INTERRUPT);
            }
            s.interrupted = false;
        }
    }

    public static boolean isInterrupted(Thread t, int site) {
        return Threads.overrides(t, Threads.IS_INTERRUPTED) ? t.isInterrupted() : Threads.isInterrupted(t, site);
    }

    public static boolean isInterruptedSuper(Thread t, int site) {
        return Threads.isInterrupted(t, site);
    }

    /** {@code t.getState()}: what the model says for a thread of this execution ({@link ThreadStates}). */
    public static Thread.State getState(Thread t, int site) {
        return Threads.overrides(t, Threads.GET_STATE) ? t.getState() : Threads.getState(t, site);
    }

    public static Thread.State getStateSuper(Thread t, int site) {
        return Threads.getState(t, site);
    }

    /** {@code Thread.holdsLock(o)}: true when the calling thread holds the model monitor of {@code o} (or its real one). */
    public static boolean holdsLock(Object o) {
        return Threads.holdsLock(o);
    }

    public static boolean interrupted(int site) {
        return Threads.interrupted(site);
    }

    public static boolean isAlive(Thread t, int site) {
        return Threads.isAlive(t, site);
    }

    public static void park(int site) {
        Threads.park(null, site);
    }

    public static void park(Object blocker, int site) {
        Threads.park(blocker, site);
    }

    public static void parkNanos(long nanos, int site) {
        Threads.parkNanos(null, nanos, site);
    }

    public static void parkNanos(Object blocker, long nanos, int site) {
        Threads.parkNanos(blocker, nanos, site);
    }

    public static void parkUntil(long deadlineMillis, int site) {
        Threads.parkUntil(null, deadlineMillis, site);
    }

    public static void parkUntil(Object blocker, long deadlineMillis, int site) {
        Threads.parkUntil(blocker, deadlineMillis, site);
    }

    /** {@code LockSupport.getBlocker(t)}: the model's answer for a thread of this execution ({@link Threads#getBlocker}). */
    public static Object getBlocker(Thread t, int site) {
        return Threads.getBlocker(t, site);
    }

    public static void unpark(Thread t, int site) {
        Threads.unpark(t, site);
    }

    // =====================================================================================
    // Exit, time, randomness

    public static void exit(int status) {
        Sched.exit(status);
    }

    public static void halt(Runtime r, int status) {
        Sched.exit(status);
    }

    public static void exit(Runtime r, int status) {
        Sched.exit(status);
    }

    public static long nanoTime() {
        return Clock.nanoTime();
    }

    /** {@code Instant.now()} on the logical clock. */
    public static java.time.Instant instantNow() {
        return LogicalClock.now();
    }

    /** {@code Clock.systemUTC()}: the logical clock in UTC. */
    public static java.time.Clock systemUTC() {
        return LogicalClock.UTC;
    }

    /** {@code Clock.systemDefaultZone()}, and the clock of a no-argument {@code now()}. */
    public static java.time.Clock systemDefaultZone() {
        return new LogicalClock(java.time.ZoneId.systemDefault());
    }

    /** The clock of {@code now(zone)}: the logical clock in {@code zone}. */
    public static java.time.Clock clockIn(java.time.ZoneId zone) {
        return new LogicalClock(zone);
    }

    public static long currentTimeMillis() {
        return Clock.currentTimeMillis();
    }

    public static long seed() {
        return Clock.seed();
    }

    public static double mathRandom() {
        return Clock.mathRandom();
    }

    // =====================================================================================
    // The harness's side

    /** Starts a new execution whose thread 0 is {@code t0} (not started yet). */
    public static void begin(Thread t0, int maxStepsArg, boolean fullArg, int[] choicesArg) {
        Sched.begin(t0, maxStepsArg, fullArg, choicesArg, false, null, false);
    }

    /** Starts a new execution with RUN options ({@code stacks}, a PCT scheduler or null, {@code trace}). */
    public static void begin(Thread t0, int maxStepsArg, boolean fullArg, int[] choicesArg, boolean stacksArg, Online pctArg, boolean traceArg) {
        Sched.begin(t0, maxStepsArg, fullArg, choicesArg, stacksArg, pctArg, traceArg);
    }

    /**
     * The sleep set of the next execution (RUN option {@code sleep}, null for none; {@link
     * Sleep#set}). Throws IllegalArgumentException on a malformed one.
     */
    public static void sleep(String spec) {
        Sleep.set(spec);
    }

    /** Waits until the execution ends or the deadline passes; true if it ended. */
    public static boolean awaitEnd(long deadlineNanos) {
        return Sched.awaitEnd(deadlineNanos);
    }

    public static boolean isOver() {
        return Sched.over;
    }

    /** The running thread if the scheduler waits for it outside racelens (diagnostics). */
    public static Thread runningThread() {
        return Sched.runningThread();
    }

    public static int stepCount() {
        return Sched.steps;
    }

    public static int decisionCount() {
        return Sched.decisions;
    }

    public static String outcome() {
        return Sched.outcome;
    }

    public static Throwable failure() {
        return Sched.failure;
    }

    public static int failThread() {
        return Sched.failThread;
    }

    public static String errorMessage() {
        return Sched.errorMessage;
    }

    /** Records a failure of the calling controlled thread (the harness's thread 0). */
    public static void failHere(Throwable e) {
        Sched.failHere(e);
    }

    /** Thread number of {@code t} in this execution, or -1. */
    public static int idOf(Thread t) {
        TS s = Sched.tsOf(t);
        return s == null ? -1 : s.id;
    }

    /** Ends the execution from outside (watchdog or agent error) with a message for END. */
    public static void endFromHarness(String oc, String message) {
        Sched.endFromHarness(oc, message);
    }

    /** Names of the threads of this execution that are still alive (teardown diagnostics). */
    public static String aliveThreads() {
        return Sched.aliveThreads();
    }

    /** Unwinds every thread of the execution; true when all of them are dead within the timeout. */
    public static boolean teardown(long timeoutMillis) {
        return Sched.teardown(timeoutMillis);
    }

    /** SITE and THREAD lines, trace, details; the caller adds END. */
    public static void response(StringBuilder out) {
        Lines.response(out);
    }

    /**
     * A parallel stream at {@code site} runs sequentially (the instrumenter made it so): its
     * own interleavings are not explored, and the response says so (a {@code SEQUENTIAL} line).
     */
    public static void sequentialStream(int site) {
        if (me() != null) {
            Lines.sequential(site);
        }
    }

    /** Appends detail lines (the harness formats failures). */
    public static void detail(String line) {
        Lines.detail(line);
    }

    /** Prints the debug event log of the last execution on stderr (-Dracelens.check=true). */
    public static void dumpLog() {
        Lines.dumpLog();
    }
}
