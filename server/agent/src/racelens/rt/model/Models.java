package racelens.rt.model;

import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import racelens.rt.Blocker;
import racelens.rt.Rt;
import racelens.rt.TS;

/** Helpers shared by the model classes. */
public final class Models {
    private Models() {}

    /** Blocked until a predicate of model state holds. */
    static class Until extends Blocker.Cond {
        final BooleanSupplier cond;
        final Object what;
        final String verb;
        final BooleanSupplier idle;

        Until(BooleanSupplier cond, Object what, String verb, BooleanSupplier idle) {
            this.cond = cond;
            this.what = what;
            this.verb = verb;
            this.idle = idle;
        }

        @Override
        protected boolean cond() {
            return cond.getAsBoolean();
        }

        @Override
        public boolean idle() {
            return idle != null && idle.getAsBoolean();
        }

        @Override
        public String describe(TS t) {
            return verb + " " + Rt.label(what);
        }
    }

    /**
     * {@code text}, a {@code toString()} the JDK made (it starts with the name of the object's
     * class), with the JDK class's name where the object is a model's own instance: what the
     * JDK prints for {@code new Semaphore(1)} is {@code java.util.concurrent.Semaphore@...}.
     * An application subclass keeps its own name, as in the JDK.
     */
    static String asJdk(String text, Object o, Class<?> jdk) {
        String name = o.getClass().getName();
        return name.startsWith("racelens.") && text.startsWith(name) ? jdk.getName() + text.substring(name.length()) : text;
    }

    /** {@code Object.toString()} of {@code o} as the JDK prints it for an object of class {@code jdk} (see {@link #asJdk}). */
    static String identity(Object o, Class<?> jdk) {
        String name = o.getClass().getName();
        return (name.startsWith("racelens.") ? jdk.getName() : name) + "@" + Integer.toHexString(o.hashCode());
    }

    static void checkInterrupt(TS s) throws InterruptedException {
        if (s.interrupted) {
            s.interrupted = false;
            Rt.changed();
            throw new InterruptedException();
        }
    }

    /**
     * Waits (model) until {@code cond} holds: true when it does, false on timeout; throws on
     * interrupt when {@code interruptible}.
     */
    static boolean until(TS s, BooleanSupplier cond, Object what, String verb, boolean timed, long nanos,
            boolean interruptible) throws InterruptedException {
        if (interruptible) {
            checkInterrupt(s);
        }
        if (cond.getAsBoolean()) {
            return true;
        }
        if (timed && nanos <= 0) {
            return false;
        }
        return until(s, new Until(cond, what, verb, null), timed, nanos, interruptible);
    }

    /** {@link #until} with a blocker of the caller's ({@code u}: its condition, object and words). */
    static boolean until(TS s, Until u, boolean timed, long nanos, boolean interruptible) throws InterruptedException {
        if (interruptible) {
            checkInterrupt(s);
        }
        if (u.cond.getAsBoolean()) {
            return true;
        }
        if (timed && nanos <= 0) {
            return false;
        }
        Rt.blockOn(s, u, timed, nanos, interruptible, u.what);
        if (interruptible && s.interrupted) {
            checkInterrupt(s);
        }
        return u.cond.getAsBoolean();
    }

    /**
     * {@link #until}, interruptible, for a wait that another thread ends by completing the
     * operation for the waiter (a hand-off, a phase advance): once {@code cond} holds, the
     * operation has happened, and an interrupt that came with or after it does not undo it: the
     * interrupt stays pending and the wait succeeds, as in the JDK.
     */
    static boolean untilCompleted(TS s, BooleanSupplier cond, Object what, String verb, boolean timed, long nanos)
            throws InterruptedException {
        try {
            return until(s, cond, what, verb, timed, nanos, true);
        } catch (InterruptedException e) {
            if (!cond.getAsBoolean()) {
                throw e;
            }
            s.interrupted = true; // until cleared it
            return true;
        }
    }

    /** The logical time {@code nanos} from now; saturates (a timeout of Long.MAX_VALUE never ends). */
    static long deadline(long nanos) {
        long now = Rt.clock();
        return nanos >= Long.MAX_VALUE - now ? Long.MAX_VALUE : now + Math.max(0, nanos);
    }

    /** Logical nanoseconds left until {@code deadline} (at most what a blocked thread's deadline can hold). */
    static long left(long deadline) {
        long now = Rt.clock();
        return deadline == Long.MAX_VALUE ? Long.MAX_VALUE - now : deadline - now;
    }

    static void untilUninterruptibly(TS s, BooleanSupplier cond, Object what, String verb) {
        while (!cond.getAsBoolean()) {
            Rt.blockOn(s, new Until(cond, what, verb, null), false, 0, false, what);
        }
    }

    /**
     * {@link #idleUntil}, or with {@code nanos} > 0 {@link #idleFor}, for a worker that only
     * looks at {@code what} when it wakes (it writes it when it then takes a task): the step that
     * ends the wait reads {@code what}, so idle workers waking do not conflict with each other.
     * True when {@code cond} holds.
     */
    static boolean idleReading(TS s, BooleanSupplier cond, Object what, long nanos) {
        boolean timed = nanos > 0;
        while (!cond.getAsBoolean()) {
            Rt.blockReading(s, new Until(cond, what, timed ? "waiting for the next task of" : "idle in", () -> true), timed, nanos, what);
            if (timed) {
                return cond.getAsBoolean();
            }
        }
        return true;
    }

    /** An idle wait (executor workers): not a deadlock while {@code idle} holds. */
    static void idleUntil(TS s, BooleanSupplier cond, Object what, BooleanSupplier idle) {
        while (!cond.getAsBoolean()) {
            Rt.blockOn(s, new Until(cond, what, "idle in", idle), false, 0, false, what);
        }
    }

    /**
     * An idle wait for a delayed task (timer and scheduled-executor workers): until {@code cond}
     * holds or {@code nanos} of logical time pass; true when {@code cond} holds. Not a deadlock,
     * and its time passes only while some thread that is not idle waits too (see
     * {@code Sched.pickNext}), so a periodic task does not outlive the test.
     */
    static boolean idleFor(TS s, BooleanSupplier cond, Object what, long nanos) {
        if (cond.getAsBoolean()) {
            return true;
        }
        if (nanos <= 0) {
            return false;
        }
        Rt.blockOn(s, new Until(cond, what, "waiting for the next task of", () -> true), true, nanos, false, what);
        return cond.getAsBoolean();
    }

    // TimeUnit replacements (instrumented calls; the site is pushed last)

    public static void unitsleep(TimeUnit u, long amount, int site) throws InterruptedException {
        long ms = u.toMillis(amount);
        if (ms == 0 && amount > 0) {
            ms = 1;
        }
        Rt.sleep(ms, site);
    }

    public static void unittimedJoin(TimeUnit u, Thread t, long amount, int site) throws InterruptedException {
        if (amount > 0) {
            Rt.join(t, Math.max(1, u.toMillis(amount)), site);
        }
    }

    public static void unittimedWait(TimeUnit u, Object o, long amount, int site) throws InterruptedException {
        if (amount > 0) {
            Rt.wait(o, Math.max(1, u.toMillis(amount)), site);
        }
    }
}
