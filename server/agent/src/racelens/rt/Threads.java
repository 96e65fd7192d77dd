package racelens.rt;

import java.util.concurrent.locks.LockSupport;

/**
 * The model of {@code Thread} and {@code LockSupport} operations: start, the first turn and the
 * end of a thread, uncaught exceptions, join, sleep, yield, interrupts, park/unpark. A blocking
 * operation disables the thread with a {@link Blocker} ({@link JoinBlocker},
 * {@link SleepBlocker}, {@link ParkBlocker}); an uncontrolled caller gets the real operation.
 *
 * <p>State: none of its own. A thread's interrupt flag, park permit and end are fields of its
 * {@link TS}; the thread table is {@link Sched}'s.
 */
final class Threads {
    private Threads() {}

    static void start(Thread t, int site) {
        TS s = Sched.op(site, t);
        if (s == null || t.getState() != Thread.State.NEW) {
            t.start();
            return;
        }
        TS child = Sched.add(t, s.epoch);
        if (Trace.on) {
            Trace.thread(Trace.START, child.id, 0);
        }
        s.suppress++;
        try {
            t.start();
            Sched.jitter();
        } finally {
            s.suppress--;
        }
    }

    /**
     * Called at the start of {@code Thread.run()} (patched) and of {@code run()} overrides of
     * application Thread subclasses: a started controlled thread waits here for its first turn,
     * so that it runs nothing (class loading and initialisation included) before it is chosen.
     */
    static void threadBegin() {
        // Not `current`: the thread that chose this one writes `current` before the volatile
        // `turn`, and a new thread that saw only the first write would run alongside it (and
        // that thread's late `turn` write would later undo the next switch). Wait for `turn`.
        Sched.foreignMe();
    }

    /** Called (through the patched {@code Thread.exit()}) when any thread terminates. */
    static void threadExit(Thread t) {
        TS s = Sched.current;
        if (s.thread != t) {
            s = Sched.tsOf(t);
            if (s == null || s.abort || s.finished) {
                return;
            }
            try {
                Sched.waitTurn(s);
            } catch (Abort a) {
                return;
            }
        }
        if (s.abort || s.finished) {
            return;
        }
        s.finished = true;
        if (Trace.on) {
            Trace.thread(Trace.WRITE, s.id, Trace.LIFE); // its last step ends it: joiners depend on it
        }
        Lines.log("finished " + s);
        if (Sched.full) {
            Lines.appendB(s, "finished");
        }
        Sched.changed();
        TS next = Sched.pickNext(s);
        if (next != null) {
            Sched.handTo(next);
        }
    }

    /** Called (through the patched {@code Thread.dispatchUncaughtException}); true = handled. */
    static boolean uncaught(Thread t, Throwable e) {
        TS s = Sched.tsOf(t);
        if (s == null) {
            return false;
        }
        if (e instanceof Abort || s.abort || Sched.over) {
            return true;
        }
        if (Sched.current != s) {
            try {
                Sched.waitTurn(s);
            } catch (Abort a) {
                return true;
            }
        }
        if (t.getUncaughtExceptionHandler() != t.getThreadGroup() || Thread.getDefaultUncaughtExceptionHandler() != null) {
            return false; // the application installed a handler: it runs (as this thread's code)
        }
        Sched.fail(s, e);
        // The test has failed: stop here rather than run on (often a thread waiting for the
        // dead one until the step bound), so the report ends where the failure happened.
        Sched.end("fail");
        return true;
    }

    // =====================================================================================
    // Join, sleep, yield, interrupts

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

    static void join(Thread t, int site) throws InterruptedException {
        joinTimed(t, 0, site);
    }

    static void join(Thread t, long millis, int site) throws InterruptedException {
        if (millis < 0) {
            throw new IllegalArgumentException("timeout value is negative");
        }
        joinTimed(t, millis, site);
    }

    static void join(Thread t, long millis, int nanos, int site) throws InterruptedException {
        if (millis < 0 || nanos < 0 || nanos > 999999) {
            throw new IllegalArgumentException("timeout value is negative or nanos out of range");
        }
        joinTimed(t, millis + (nanos > 0 ? 1 : 0), site);
    }

    private static void joinTimed(Thread t, long millis, int site) throws InterruptedException {
        TS s = Sched.me();
        TS target = s == null ? null : Sched.tsOf(t);
        if (target == null || s.suppress != 0) {
            if (s != null) {
                Sched.op(site, t);
            } else {
                Uncontrolled.ran(site);
            }
            if (millis == 0) {
                t.join();
            } else {
                t.join(millis);
            }
            return;
        }
        if (millis == 0) {
            // wait at the point while the thread is alive: the step is the join
            Sched.gatedPoint(s, site, t, new JoinBlocker(target), true, Trace.JOIN, Trace.THREAD_VARS, target.id << 4);
        } else {
            Sched.op(site, t);
        }
        if (Trace.on) {
            Trace.thread(Trace.JOIN, target.id, 0);
        }
        checkInterrupt(s);
        if (target.finished) {
            return;
        }
        s.doneKind = Trace.JOIN;
        s.doneObj = Trace.THREAD_VARS;
        s.doneSlot = target.id << 4;
        Sched.block(s, new JoinBlocker(target), millis > 0, millis * 1_000_000L, true);
        checkInterrupt(s);
    }

    private static void checkInterrupt(TS s) throws InterruptedException {
        if (s.interrupted) {
            s.interrupted = false;
            Sched.changed();
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

    static void sleep(long millis, int site) throws InterruptedException {
        if (millis < 0) {
            throw new IllegalArgumentException("timeout value is negative");
        }
        TS s = Sched.op(site, null);
        if (s == null) {
            Thread.sleep(millis);
            return;
        }
        checkInterrupt(s);
        if (millis > 0) {
            Sched.block(s, SleepBlocker.INSTANCE, true, millis * 1_000_000L, true);
            checkInterrupt(s);
        }
    }

    static void sleep(long millis, int nanos, int site) throws InterruptedException {
        sleep(millis + (nanos > 0 ? 1 : 0), site);
    }

    static void yield(int site) {
        Sched.yieldOp(site);
    }

    /**
     * The non-final methods of {@code Thread} that the instrumenter replaces, as bits: a thread
     * class of the application that overrides one keeps its override ({@link #overrides}).
     */
    static final int INTERRUPT = 1, IS_INTERRUPTED = 2, GET_STATE = 4;

    private static final ClassValue<Integer> OVERRIDES = new ClassValue<>() {
        @Override
        protected Integer computeValue(Class<?> c) {
            int bits = 0;
            for (Class<?> k = c; k != null && k != Thread.class; k = k.getSuperclass()) {
                bits |= declares(k, "interrupt") ? INTERRUPT : 0;
                bits |= declares(k, "isInterrupted") ? IS_INTERRUPTED : 0;
                bits |= declares(k, "getState") ? GET_STATE : 0;
            }
            return bits;
        }
    };

    /** Whether application class {@code k} (instrumented: its {@code super} calls are the model's) declares {@code name()}. */
    private static boolean declares(Class<?> k, String name) {
        if (!Rt.APP_CLASSES.contains(k.getName())) {
            return false; // a library's override would interrupt the real thread, which the model never sees
        }
        try {
            k.getDeclaredMethod(name);
            return true;
        } catch (NoSuchMethodException e) {
            return false;
        }
    }

    /**
     * Whether the class of {@code t} overrides the method {@code bit} names: then the call runs
     * the override (application code, instrumented), whose {@code super} call is the model's.
     */
    static boolean overrides(Thread t, int bit) {
        return t.getClass() != Thread.class && (OVERRIDES.get(t.getClass()) & bit) != 0;
    }

    static void interrupt(Thread t, int site) {
        TS s = Sched.op(site, t);
        TS target = s == null ? null : Sched.tsOf(t);
        if (target == null) {
            t.interrupt();
            return;
        }
        interruptModel(target);
    }

    /** Sets the interrupt status of controlled thread {@code target} (no scheduling point). */
    static void interruptModel(TS target) {
        if (Trace.on) {
            Trace.thread(Trace.WRITE, target.id, Trace.INTERRUPT);
        }
        target.interrupted = true;
        Sched.changed();
    }

    /**
     * {@code t.interrupt()} made by a model on behalf of the running thread (a future cancelled
     * with {@code mayInterruptIfRunning}, an executor shut down now): the model's interrupt for
     * a controlled thread of this execution, the JDK's otherwise. No scheduling point.
     */
    static void interruptNow(Thread t) {
        TS target = Sched.me() == null ? null : Sched.tsOf(t);
        if (target == null) {
            t.interrupt();
        } else if (!target.finished) {
            interruptModel(target);
        }
    }

    static boolean isInterrupted(Thread t, int site) {
        TS s = Sched.op(site, t);
        TS target = s == null ? null : Sched.tsOf(t);
        if (target != null && Trace.on) {
            Trace.thread(Trace.READ, target.id, Trace.INTERRUPT);
        }
        return target == null ? t.isInterrupted() : target.interrupted;
    }

    /** {@code t.getState()}: the model's answer for a thread of this execution ({@link ThreadStates#of}). */
    static Thread.State getState(Thread t, int site) {
        TS s = Sched.op(site, t);
        TS target = s == null ? null : Sched.tsOf(t);
        if (target == null) {
            return t.getState(); // not started (NEW), or not racelens's
        }
        if (Trace.on) {
            Trace.thread(Trace.READ, target.id, Trace.LIFE);
            Trace.thread(Trace.READ, target.id, Trace.STATE);
        }
        return target == s ? Thread.State.RUNNABLE : ThreadStates.of(target);
    }

    /** {@code Thread.holdsLock(o)}: a monitor of the model, or a real one (held inside JDK code). */
    static boolean holdsLock(Object o) {
        if (o == null) {
            throw new NullPointerException();
        }
        TS s = Sched.me();
        return s != null && ThreadStates.holdsLock(s, o) || Thread.holdsLock(o);
    }

    static boolean interrupted(int site) {
        TS s = Sched.op(site, null);
        if (s == null) {
            return Thread.interrupted();
        }
        if (Trace.on) {
            Trace.thread(Trace.WRITE, s.id, Trace.INTERRUPT);
        }
        boolean was = s.interrupted;
        if (was) {
            s.interrupted = false;
            Sched.changed();
        }
        return was;
    }

    static boolean isAlive(Thread t, int site) {
        TS s = Sched.op(site, t);
        TS target = s == null ? null : Sched.tsOf(t);
        if (target != null && Trace.on) {
            Trace.thread(Trace.READ, target.id, Trace.LIFE);
        }
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

    static void park(Object blocker, int site) {
        parkTimed(blocker, false, 0, site);
    }

    static void parkNanos(Object blocker, long nanos, int site) {
        if (nanos > 0) {
            parkTimed(blocker, true, nanos, site);
        }
    }

    static void parkUntil(Object blocker, long deadlineMillis, int site) {
        parkTimed(blocker, true, Math.max(0, deadlineMillis - (Clock.BASE_MILLIS + Clock.now / 1_000_000L)) * 1_000_000L, site);
    }

    private static void parkTimed(Object blocker, boolean timed, long nanos, int site) {
        TS s = Sched.op(site, null);
        if (s == null) {
            if (timed) {
                LockSupport.parkNanos(blocker, nanos);
            } else {
                LockSupport.park(blocker);
            }
            return;
        }
        s.parkBlocker = blocker; // LockSupport.getBlocker while it is parked
        try {
            parkModel(s, timed, nanos);
        } finally {
            s.parkBlocker = null;
        }
    }

    private static void parkModel(TS s, boolean timed, long nanos) {
        if (Trace.on) {
            Trace.thread(Trace.WRITE, s.id, Trace.PERMIT);
        }
        if (!s.permit && !s.interrupted) {
            s.doneKind = Trace.WRITE; // the completion consumes the permit
            s.doneObj = Trace.THREAD_VARS;
            s.doneSlot = (s.id << 4) | Trace.PERMIT;
            Sched.block(s, ParkBlocker.INSTANCE, timed, nanos, true);
        }
        s.permit = false;
    }

    /**
     * {@code LockSupport.getBlocker(t)}: for a thread of this execution what the JDK's would
     * say where the model knows it (the object given to {@code park}, a condition it waits on, a
     * synchronizer it waits to acquire; null while it runs, sleeps, joins or waits for a
     * monitor); for a wait whose JDK blocker is an object internal to the JDK (a lock's sync, a
     * queue's condition) an {@code UnsupportedOperationException} naming the method and the wait.
     */
    static Object getBlocker(Thread t, int site) {
        if (t == null) {
            throw new NullPointerException();
        }
        TS s = Sched.op(site, t);
        TS target = s == null ? null : Sched.tsOf(t);
        if (target == null) {
            return LockSupport.getBlocker(t);
        }
        if (Trace.on) {
            Trace.thread(Trace.READ, target.id, Trace.STATE);
        }
        return ThreadStates.blockerOf(target);
    }

    static void unpark(Thread t, int site) {
        TS s = Sched.op(site, t);
        TS target = s == null || t == null ? null : Sched.tsOf(t);
        if (target == null) {
            LockSupport.unpark(t);
            return;
        }
        if (Trace.on) {
            Trace.thread(Trace.WRITE, target.id, Trace.PERMIT);
        }
        target.permit = true;
        Sched.changed();
    }
}
