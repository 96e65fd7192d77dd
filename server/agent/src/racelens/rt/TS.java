package racelens.rt;

/** The model state of one controlled thread in one execution. */
public final class TS {
    public final Thread thread;
    public final int id;
    final int epoch;

    /** > 0 inside class initialisers and atomic JDK calls: scheduling points are no-ops. */
    public int suppress;
    /** Site of the operation this thread performs when it next runs (0 = not started yet). */
    int pendingSite;
    /** The object of that operation (trace mode: what the thread was about to touch). */
    Object pendingObj;
    /**
     * While blocked (or waiting at a point whose operation cannot proceed): the effect of the
     * operation when it completes, for the trace ({@link Trace}; kind 0 = none).
     */
    byte doneKind;
    Object doneObj;
    int doneSlot;
    /** Chosen while waiting at a point whose operation could not proceed: that decision is taken. */
    boolean chosen;
    boolean enabled = true;
    boolean finished;
    /** Has been handed the turn at least once (its BEGIN step is counted then). */
    boolean begun;
    /** Set by teardown: every later scheduling point of this thread throws {@link Abort}. */
    volatile boolean abort;
    /** Real park by the scheduler in progress (for the stuck-thread check). */
    volatile boolean parkedByRt;

    Blocker blocker;
    /** Waiting at a point whose operation cannot proceed until this is ready (see {@link Sched#gatedPoint}). */
    Blocker pointBlocker;
    boolean timed;
    long deadline;
    public boolean timedOut;
    public boolean interruptible;
    public boolean interrupted;
    boolean permit;
    /** The blocker given to {@code LockSupport.park} while parked in the model ({@code LockSupport.getBlocker}). */
    Object parkBlocker;
    long ticks;
    /** Objects this thread allocated so far in this execution (their names, {@link Trace#born}). */
    int births;
    /** {@link Sched#switches} at this thread's last yield ({@link Sched#yieldOp}), -1 before its first. */
    long yieldedAt = -1;
    /** PCT priority (higher runs first). */

    double priority;
    /** Interned stack id of this thread at its pending site, -1 when unknown (RUN option stacks). */
    int stackId = -1;

    TS(Thread thread, int id, int epoch) {
        this.thread = thread;
        this.id = id;
        this.epoch = epoch;
    }

    @Override
    public String toString() {
        return "T" + id;
    }
}
