package racelens.rt.model;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.Date;
import java.util.TimerTask;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import racelens.rt.Rt;
import racelens.rt.TS;

/**
 * Replaces {@code new Timer(...)} (and is the superclass of application subclasses of
 * {@code Timer}). The JDK's constructor starts a real timer thread; this model ends it at once
 * (before it can run anything) and runs the tasks on a controlled thread of its own, named as
 * the JDK names it ({@code Timer-N}, numbered per execution), started by the first
 * {@code schedule} of an execution. Time is logical: the worker reads the logical clock as the
 * JDK's thread reads {@code System.currentTimeMillis()}, and waits for the next task with a timed
 * idle wait, so a delay elapses when nothing else can run. Fixed-delay and fixed-rate tasks
 * re-arm exactly as in the JDK; a task that throws kills the timer (the exception is a failure
 * of the execution, as an uncaught exception of the JDK's timer thread would be).
 *
 * <p>{@code TimerTask}'s own state ({@code cancel()}, {@code scheduledExecutionTime()}) is the
 * JDK's: this model sets its package-private fields by reflection (needs {@code java.util}
 * opened, see {@code Agent.openJavaBase}).
 *
 * <p>Calls from threads racelens does not control (outside executions, e.g.
 * {@code @BeforeClass}) go to a real JDK timer made on demand: its thread is not controlled, and
 * if it runs project code during an execution that execution ends as {@code uncontrolled}.
 *
 * <p>State: per execution (reset lazily when {@link Rt#epoch} moves on) the queue of scheduled
 * tasks in firing order, the worker thread, and whether the timer is cancelled (by
 * {@link #cancel} or because a task threw).
 */
public class ModelTimer extends java.util.Timer {
    // TimerTask's states (java.util.TimerTask.VIRGIN ...)
    private static final int VIRGIN = 0;
    private static final int SCHEDULED = 1;
    private static final int EXECUTED = 2;
    private static final int CANCELLED = 3;

    private static final VarHandle STATE;
    private static final VarHandle NEXT;
    private static final VarHandle PERIOD;
    private static final VarHandle LOCK;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.privateLookupIn(TimerTask.class, MethodHandles.lookup());
            STATE = l.findVarHandle(TimerTask.class, "state", int.class);
            NEXT = l.findVarHandle(TimerTask.class, "nextExecutionTime", long.class);
            PERIOD = l.findVarHandle(TimerTask.class, "period", long.class);
            LOCK = l.findVarHandle(TimerTask.class, "lock", Object.class);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("racelens cannot reach java.util.TimerTask's state (the JVM needs "
                    + "--add-opens java.base/java.util=ALL-UNNAMED): " + e, e);
        }
    }

    private static int nameSeq;
    private static int nameEpoch = -1;

    /** {@code Timer-N}, numbered from 0 in every execution, as the JDK numbers them in a fresh JVM. */
    private static synchronized String nextName() {
        if (nameEpoch != Rt.epoch) {
            nameEpoch = Rt.epoch;
            nameSeq = 0;
        }
        return "Timer-" + nameSeq++;
    }

    /** A scheduled task: when it fires next (absolute logical milliseconds), its period (JDK sign convention), order. */
    private static final class Entry {
        final TimerTask task;
        long time;
        final long period;
        long seq;

        Entry(TimerTask task, long time, long period, long seq) {
            this.task = task;
            this.time = time;
            this.period = period;
            this.seq = seq;
        }
    }

    private final String name;
    private final boolean daemon;
    private int epoch = -1;
    /** Sorted by time, then by scheduling order. */
    private final ArrayList<Entry> queue = new ArrayList<>();
    private long seq;
    private Thread worker;
    private boolean cancelled;
    /** For callers racelens does not control: a real JDK timer, made on first use (under {@link #realLock}). */
    private volatile java.util.Timer real;
    private final Object realLock = new Object();

    public ModelTimer() {
        this(nextName(), false);
    }

    public ModelTimer(boolean isDaemon) {
        this(nextName(), isDaemon);
    }

    public ModelTimer(String name) {
        this(name, false);
    }

    public ModelTimer(String name, boolean isDaemon) {
        super(name, isDaemon);
        // The JDK's thread waits for a first task; cancelling ends it before it runs anything.
        super.cancel();
        this.name = name;
        this.daemon = isDaemon;
    }

    private void fresh() {
        if (epoch != Rt.epoch) { // the worker of an earlier execution is gone
            epoch = Rt.epoch;
            queue.clear();
            worker = null;
            cancelled = false;
        }
    }

    private java.util.Timer real() {
        synchronized (realLock) {
            if (real == null) {
                real = new java.util.Timer(name, daemon);
            }
            return real;
        }
    }

    // =====================================================================================
    // Scheduling (the JDK's argument checks, in the JDK's order)

    @Override
    public void schedule(TimerTask task, long delay) {
        checkDelay(delay);
        dispatch(task, () -> Rt.currentTimeMillis() + delay, 0, timer -> timer.schedule(task, delay));
    }

    @Override
    public void schedule(TimerTask task, Date time) {
        dispatch(task, () -> time.getTime(), 0, timer -> timer.schedule(task, time));
    }

    @Override
    public void schedule(TimerTask task, long delay, long period) {
        checkDelay(delay);
        checkPeriod(period);
        dispatch(task, () -> Rt.currentTimeMillis() + delay, -period, timer -> timer.schedule(task, delay, period));
    }

    @Override
    public void schedule(TimerTask task, Date firstTime, long period) {
        checkPeriod(period);
        dispatch(task, () -> firstTime.getTime(), -period, timer -> timer.schedule(task, firstTime, period));
    }

    @Override
    public void scheduleAtFixedRate(TimerTask task, long delay, long period) {
        checkDelay(delay);
        checkPeriod(period);
        dispatch(task, () -> Rt.currentTimeMillis() + delay, period, timer -> timer.scheduleAtFixedRate(task, delay, period));
    }

    @Override
    public void scheduleAtFixedRate(TimerTask task, Date firstTime, long period) {
        checkPeriod(period);
        dispatch(task, () -> firstTime.getTime(), period, timer -> timer.scheduleAtFixedRate(task, firstTime, period));
    }

    private static void checkDelay(long delay) {
        if (delay < 0) {
            throw new IllegalArgumentException("Negative delay.");
        }
    }

    private static void checkPeriod(long period) {
        if (period <= 0) {
            throw new IllegalArgumentException("Non-positive period.");
        }
    }

    /**
     * Schedules {@code task} at {@code time} (read only for a controlled caller: the logical
     * clock is theirs) with {@code period} (JDK sign convention); an uncontrolled caller's call
     * goes to the real timer ({@code outside}).
     */
    private void dispatch(TimerTask task, LongSupplier time, long period, Consumer<java.util.Timer> outside) {
        TS s = Rt.me();
        if (s == null) {
            outside.accept(real());
            return;
        }
        sched(s, task, time.getAsLong(), period);
    }

    private void sched(TS s, TimerTask task, long time, long period) {
        if (time < 0) {
            throw new IllegalArgumentException("Illegal execution time.");
        }
        if (Math.abs(period) > (Long.MAX_VALUE >> 1)) {
            period >>= 1;
        }
        fresh();
        Rt.touch(this); // also when called through an application subclass (no call point then)
        Rt.touch(task);
        if (cancelled) {
            throw new IllegalStateException("Timer already cancelled.");
        }
        synchronized (LOCK.get(task)) {
            if ((int) STATE.get(task) != VIRGIN) {
                throw new IllegalStateException("Task already scheduled or cancelled");
            }
            NEXT.set(task, time);
            PERIOD.set(task, period);
            STATE.set(task, SCHEDULED);
        }
        insert(new Entry(task, time, period, ++seq));
        if (worker == null) {
            Thread t = new Thread(this::workerLoop, name);
            t.setDaemon(daemon);
            worker = t;
            Rt.start(t, 0);
        }
        Rt.changed();
    }

    private void insert(Entry e) {
        int i = queue.size();
        while (i > 0 && (queue.get(i - 1).time > e.time || queue.get(i - 1).time == e.time && queue.get(i - 1).seq > e.seq)) {
            i--;
        }
        queue.add(i, e);
    }

    @Override
    public void cancel() {
        synchronized (realLock) {
            if (real != null) {
                real.cancel();
            }
        }
        if (Rt.me() == null) {
            return;
        }
        fresh();
        Rt.touch(this);
        cancelled = true;
        queue.clear(); // the JDK leaves the tasks' states as they are; so does this
        Rt.changed();
    }

    @Override
    public int purge() {
        int removed = 0;
        synchronized (realLock) {
            if (real != null) {
                removed = real.purge();
            }
        }
        if (Rt.me() == null) {
            return removed;
        }
        fresh();
        Rt.touch(this);
        for (int i = queue.size() - 1; i >= 0; i--) {
            TimerTask t = queue.get(i).task;
            Rt.touch(t); // reads its state
            if (state(t) == CANCELLED) {
                queue.remove(i);
                removed++;
            }
        }
        if (removed > 0) {
            Rt.changed();
        }
        return removed;
    }

    private static int state(TimerTask t) {
        synchronized (LOCK.get(t)) {
            return (int) STATE.get(t);
        }
    }

    // =====================================================================================
    // The worker: the JDK's TimerThread.mainLoop, on a controlled thread, in logical time

    private void workerLoop() {
        TS s = Rt.me();
        int mine = epoch;
        boolean normal = false;
        try {
            for (;;) {
                TimerTask task = next(s);
                if (task == null) {
                    normal = true;
                    return;
                }
                task.run();
            }
        } finally {
            if (!normal && epoch == mine && Rt.epoch == mine) {
                // a task threw: the JDK's thread dies and the timer behaves as if cancelled
                Rt.touch(this);
                cancelled = true;
                queue.clear();
                Rt.changed();
            }
        }
    }

    /** The next task to run, once it is due; null when the timer is cancelled (the thread ends). */
    private TimerTask next(TS s) {
        for (;;) {
            Rt.touch(this); // reads the queue: a schedule() or cancel() on another thread conflicts
            if (queue.isEmpty()) {
                if (cancelled) {
                    return null;
                }
                Models.idleUntil(s, () -> !queue.isEmpty() || cancelled, this, () -> true);
                continue;
            }
            Entry e = queue.get(0);
            TimerTask task = e.task;
            Rt.touch(task); // its state decides: an application thread may cancel it meanwhile
            long wait;
            synchronized (LOCK.get(task)) { // the JDK's lock of the task, never held while waiting
                if ((int) STATE.get(task) == CANCELLED) {
                    queue.remove(0);
                    Rt.changed();
                    continue;
                }
                long now = Rt.currentTimeMillis();
                if (e.time <= now) {
                    queue.remove(0);
                    if (e.period == 0) {
                        STATE.set(task, EXECUTED);
                    } else {
                        e.time = e.period < 0 ? now - e.period : e.time + e.period;
                        e.seq = ++seq;
                        NEXT.set(task, e.time);
                        insert(e);
                    }
                    Rt.changed();
                    return task;
                }
                wait = e.time - now;
            }
            waitFor(s, e, wait);
        }
    }

    private void waitFor(TS s, Entry head, long millis) {
        Models.idleFor(s, () -> cancelled || queue.isEmpty() || queue.get(0) != head, this, millis * 1_000_000L);
    }
}
