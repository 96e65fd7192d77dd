package racelens.rt;

/**
 * Why a controlled thread is disabled. {@link #ready} is evaluated by the running thread (the
 * scheduler runs in whichever controlled thread is current), so it must only read model state.
 */
public abstract class Blocker {
    /** True when the blocked thread {@code t} may proceed (also when timed out or interrupted, where that applies). */
    public abstract boolean ready(TS t);

    /** Called once when the timeout of a timed block fires (e.g. leave a wait set). */
    public void onTimeout(TS t) {}

    /**
     * An idle executor or timer worker waiting for tasks: not a deadlock when the test is over.
     * When it waits for a delayed task (timed), its timeout fires only while some thread is not
     * idle ({@link Sched#pickNext}).
     */
    public boolean idle() {
        return false;
    }

    /**
     * The object {@code LockSupport.getBlocker} names for a thread waiting here, where the JDK's
     * blocker is an object of the application (a synchronizer it acquires, a condition it waits
     * on); null when the JDK's is internal to the JDK, which racelens does not model.
     */
    public Object waitsOn() {
        return null;
    }

    /** For WAIT lines and B lines: "lock Account@2 held by 1", "waiting for 1 to finish". */
    public abstract String describe(TS t);

    /** A blocker on a predicate of model state: ready when it holds, or on timeout/interrupt. */
    public abstract static class Cond extends Blocker {
        protected abstract boolean cond();

        @Override
        public boolean ready(TS t) {
            return t.timedOut || (t.interruptible && t.interrupted) || cond();
        }
    }
}
