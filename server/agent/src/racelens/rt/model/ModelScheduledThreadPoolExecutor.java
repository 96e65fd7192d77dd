package racelens.rt.model;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.Delayed;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionHandler;
import java.util.concurrent.RunnableFuture;
import java.util.concurrent.RunnableScheduledFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import racelens.rt.Rt;
import racelens.rt.TS;

/**
 * Replaces {@code new ScheduledThreadPoolExecutor(...)} and the scheduled executors of
 * {@code Executors} (and is the superclass of application subclasses). The JDK's pool never
 * starts a thread: tasks wait in a model delay queue and run on controlled workers, started one
 * per {@code schedule} up to the core size (at least one), as the JDK starts them. Time is
 * logical: a delay elapses when nothing else can run (the waiting worker's timed idle wait; see
 * {@link Models#idleFor}), {@code getDelay} reads the logical clock, fixed-rate tasks re-arm at
 * {@code time + period} and fixed-delay ones at {@code now + delay} after each run. As in the JDK
 * one idle worker (the leader) waits for the head's delay, the others until they are needed.
 *
 * <p>Shutdown follows the JDK's policies: {@code shutdown()} cancels periodic tasks unless
 * {@code getContinueExistingPeriodicTasksAfterShutdownPolicy()}, and delayed ones that are not
 * yet due unless {@code getExecuteExistingDelayedTasksAfterShutdownPolicy()} (true by default);
 * a periodic task that may go on stops re-arming once the executor is stopped; {@code
 * shutdownNow()} returns the queued tasks and interrupts the workers. {@code decorateTask},
 * {@code beforeExecute}, {@code afterExecute} and {@code terminated} of application subclasses
 * are called as the JDK calls them. {@code getQueue()} is a snapshot; workers do not time out
 * ({@code allowCoreThreadTimeOut}, keep-alive times are not modelled).
 *
 * <p>Calls from threads racelens does not control go to a real JDK executor made on demand (its
 * threads are not controlled; project code they run during an execution ends it as
 * {@code uncontrolled}).
 *
 * <p>State: per execution (reset lazily when {@link Rt#epoch} moves on) the queue in firing
 * order, the workers, the leader and the idle followers, the run state and the counters.
 */
public class ModelScheduledThreadPoolExecutor extends java.util.concurrent.ScheduledThreadPoolExecutor {
    private final ThreadFactory factory;
    private final String prefix;

    private int epoch = -1;
    /** In firing order ({@code compareTo} of the queued futures, ties in queueing order). */
    private final ArrayList<RunnableScheduledFuture<?>> queue = new ArrayList<>();
    private final ArrayList<Thread> workers = new ArrayList<>();
    /** Idle workers that are not the leader, longest waiting first: the first is woken when needed. */
    private final ArrayList<Thread> followers = new ArrayList<>();
    private Thread leader;
    private int created;
    private int live;
    private int largest;
    private int active;
    private long completed;
    private boolean shutdown;
    private boolean stopped;
    private boolean terminatedHookRan;
    private long sequence;
    /** For callers racelens does not control: a real JDK executor, made on first use (under {@link #realLock}). */
    private volatile java.util.concurrent.ScheduledThreadPoolExecutor real;
    private final Object realLock = new Object();

    public ModelScheduledThreadPoolExecutor(int corePoolSize) {
        super(corePoolSize);
        this.factory = null;
        this.prefix = ModelExecutor.nextPoolPrefix();
    }

    public ModelScheduledThreadPoolExecutor(int corePoolSize, ThreadFactory threadFactory) {
        super(corePoolSize, threadFactory);
        this.factory = threadFactory;
        this.prefix = null;
    }

    public ModelScheduledThreadPoolExecutor(int corePoolSize, RejectedExecutionHandler handler) {
        super(corePoolSize, handler);
        this.factory = null;
        this.prefix = ModelExecutor.nextPoolPrefix();
    }

    public ModelScheduledThreadPoolExecutor(int corePoolSize, ThreadFactory threadFactory, RejectedExecutionHandler handler) {
        super(corePoolSize, threadFactory, handler);
        this.factory = threadFactory;
        this.prefix = null;
    }

    private void fresh() {
        if (epoch != Rt.epoch) { // the workers of an earlier execution are gone
            epoch = Rt.epoch;
            queue.clear();
            workers.clear();
            followers.clear();
            leader = null;
            created = 0;
            live = 0;
            largest = 0;
            active = 0;
            completed = 0;
            shutdown = false;
            stopped = false;
            terminatedHookRan = false;
        }
    }

    /** The calling controlled thread, with the model state of this execution; null when uncontrolled. */
    private TS enter() {
        TS s = Rt.me();
        if (s != null) {
            fresh();
            Rt.touch(this); // also when called through an application subclass (no call point then)
        }
        return s;
    }

    private java.util.concurrent.ScheduledThreadPoolExecutor real() {
        synchronized (realLock) {
            if (real == null) {
                real = factory == null ? new java.util.concurrent.ScheduledThreadPoolExecutor(getCorePoolSize(), getRejectedExecutionHandler())
                        : new java.util.concurrent.ScheduledThreadPoolExecutor(getCorePoolSize(), factory, getRejectedExecutionHandler());
            }
            return real;
        }
    }

    // =====================================================================================
    // The model's scheduled future

    /** The JDK's {@code ScheduledFutureTask}: a model future (its {@code get} waits in the model) with a time. */
    final class Task<V> extends ModelFutureTask<V> implements RunnableScheduledFuture<V> {
        private final long seq;
        /** Logical {@code System.nanoTime()} at which it is due. */
        private volatile long time;
        /** > 0 fixed rate, < 0 fixed delay, 0 once (nanoseconds). */
        private final long period;
        RunnableScheduledFuture<V> outer = this;

        Task(Runnable r, V result, long time, long period) {
            super(r, result);
            this.time = time;
            this.period = period;
            this.seq = sequence++;
        }

        Task(Callable<V> c, long time) {
            super(c);
            this.time = time;
            this.period = 0;
            this.seq = sequence++;
        }

        @Override
        public long getDelay(TimeUnit unit) {
            return unit.convert(time - Rt.nanoTime(), TimeUnit.NANOSECONDS);
        }

        @Override
        public int compareTo(Delayed other) {
            if (other == this) {
                return 0;
            }
            if (other instanceof Task) {
                Task<?> x = (Task<?>) other;
                long diff = time - x.time;
                return diff < 0 ? -1 : diff > 0 ? 1 : seq < x.seq ? -1 : 1;
            }
            long diff = getDelay(TimeUnit.NANOSECONDS) - other.getDelay(TimeUnit.NANOSECONDS);
            return diff < 0 ? -1 : diff > 0 ? 1 : 0;
        }

        @Override
        public boolean isPeriodic() {
            return period != 0;
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            boolean cancelled = super.cancel(mayInterruptIfRunning);
            if (cancelled && getRemoveOnCancelPolicy() && Rt.me() != null) {
                removeQueued(this);
            }
            return cancelled;
        }

        @Override
        public void run() {
            Rt.touch(ModelScheduledThreadPoolExecutor.this); // reads the run state (beforeExecute may have let others run)
            if (!canRunInCurrentRunState(this)) {
                cancel(false);
            } else if (!isPeriodic()) {
                super.run();
            } else if (super.runAndReset()) {
                long p = period;
                time = p > 0 ? time + p : Rt.nanoTime() - p;
                Rt.touch(this); // its delay changed
                reExecutePeriodic(outer);
            }
        }
    }

    private long triggerTime(long delay, TimeUnit unit) {
        long d = unit.toNanos(delay < 0 ? 0 : delay);
        return Rt.nanoTime() + (d < (Long.MAX_VALUE >> 1) ? d : Long.MAX_VALUE >> 1);
    }

    private boolean canRunInCurrentRunState(RunnableScheduledFuture<?> task) {
        if (!shutdown) {
            return true;
        }
        if (stopped) {
            return false;
        }
        return task.isPeriodic() ? getContinueExistingPeriodicTasksAfterShutdownPolicy()
                : getExecuteExistingDelayedTasksAfterShutdownPolicy() || task.getDelay(TimeUnit.NANOSECONDS) <= 0;
    }

    // =====================================================================================
    // Scheduling

    @Override
    public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
        if (command == null || unit == null) {
            throw new NullPointerException();
        }
        TS s = enter();
        if (s == null) {
            return real().schedule(command, delay, unit);
        }
        RunnableScheduledFuture<Void> t = decorateTask(command, new Task<Void>(command, null, triggerTime(delay, unit), 0));
        delayedExecute(t);
        return t;
    }

    @Override
    public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
        if (callable == null || unit == null) {
            throw new NullPointerException();
        }
        TS s = enter();
        if (s == null) {
            return real().schedule(callable, delay, unit);
        }
        RunnableScheduledFuture<V> t = decorateTask(callable, new Task<V>(callable, triggerTime(delay, unit)));
        delayedExecute(t);
        return t;
    }

    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
        checkPeriodic(command, period, unit);
        TS s = enter();
        return s == null ? real().scheduleAtFixedRate(command, initialDelay, period, unit)
                : schedulePeriodic(command, triggerTime(initialDelay, unit), unit.toNanos(period));
    }

    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay, TimeUnit unit) {
        checkPeriodic(command, delay, unit);
        TS s = enter();
        return s == null ? real().scheduleWithFixedDelay(command, initialDelay, delay, unit)
                : schedulePeriodic(command, triggerTime(initialDelay, unit), -unit.toNanos(delay));
    }

    /** The JDK's argument checks of the periodic schedules, in its order. */
    private static void checkPeriodic(Runnable command, long period, TimeUnit unit) {
        if (command == null || unit == null) {
            throw new NullPointerException();
        }
        if (period <= 0L) {
            throw new IllegalArgumentException();
        }
    }

    /** Queues a periodic task first due at {@code time} ({@code period}: > 0 fixed rate, < 0 fixed delay). */
    private ScheduledFuture<?> schedulePeriodic(Runnable command, long time, long period) {
        Task<Void> sft = new Task<>(command, null, time, period);
        RunnableScheduledFuture<Void> t = decorateTask(command, sft);
        sft.outer = t; // re-armed as what decorateTask made of it
        delayedExecute(t);
        return t;
    }

    @Override
    public void execute(Runnable command) {
        schedule(command, 0, TimeUnit.NANOSECONDS);
    }

    @Override
    public Future<?> submit(Runnable task) {
        return schedule(task, 0, TimeUnit.NANOSECONDS);
    }

    @Override
    public <T> Future<T> submit(Runnable task, T result) {
        return schedule(Executors.callable(task, result), 0, TimeUnit.NANOSECONDS);
    }

    @Override
    public <T> Future<T> submit(Callable<T> task) {
        return schedule(task, 0, TimeUnit.NANOSECONDS);
    }

    @Override
    protected <T> RunnableFuture<T> newTaskFor(Runnable runnable, T value) {
        return new ModelFutureTask<>(runnable, value); // invokeAll's futures wait in the model
    }

    @Override
    protected <T> RunnableFuture<T> newTaskFor(Callable<T> callable) {
        return new ModelFutureTask<>(callable);
    }

    @Override
    public <T> T invokeAny(Collection<? extends Callable<T>> tasks) throws InterruptedException, ExecutionException {
        return Rt.me() == null ? super.invokeAny(tasks) : ModelInvokeAny.invokeAny(this, tasks);
    }

    @Override
    public <T> T invokeAny(Collection<? extends Callable<T>> tasks, long timeout, TimeUnit unit)
            throws InterruptedException, ExecutionException, TimeoutException {
        return Rt.me() == null ? super.invokeAny(tasks, timeout, unit) : ModelInvokeAny.invokeAny(this, tasks, unit.toNanos(timeout));
    }

    @Override
    public <T> List<Future<T>> invokeAll(Collection<? extends Callable<T>> tasks, long timeout, TimeUnit unit) throws InterruptedException {
        return Rt.me() == null ? super.invokeAll(tasks, timeout, unit) : ModelInvokeAny.invokeAll(this, tasks, unit.toNanos(timeout), this::newTaskFor);
    }

    private void delayedExecute(RunnableScheduledFuture<?> task) {
        if (shutdown) {
            getRejectedExecutionHandler().rejectedExecution(task, this);
            return;
        }
        enqueue(task);
        ensurePrestart();
    }

    private void reExecutePeriodic(RunnableScheduledFuture<?> task) {
        if (canRunInCurrentRunState(task)) {
            enqueue(task);
            ensurePrestart();
        } else {
            task.cancel(false);
        }
    }

    private void enqueue(RunnableScheduledFuture<?> task) {
        int i = queue.size();
        while (i > 0 && queue.get(i - 1).compareTo(task) > 0) {
            i--;
        }
        queue.add(i, task);
        Rt.touch(this);
        Rt.changed();
    }

    private boolean removeQueued(Runnable task) {
        fresh();
        Rt.touch(this);
        for (int i = 0; i < queue.size(); i++) {
            RunnableScheduledFuture<?> q = queue.get(i);
            if (q == task || q instanceof Task && ((Task<?>) q).outer == task || task instanceof Task && ((Task<?>) task).outer == q) {
                queue.remove(i);
                Rt.changed();
                return true;
            }
        }
        return false;
    }

    /** The JDK's {@code ensurePrestart}: a worker per scheduled task up to the core size, at least one. */
    private void ensurePrestart() {
        if (live < getCorePoolSize() || live == 0) {
            startWorker();
        }
    }

    private boolean startWorker() {
        Runnable loop = this::workerLoop;
        Thread t;
        if (factory != null) {
            t = factory.newThread(loop);
            if (t == null) {
                return false; // as the JDK's addWorker: no thread, no worker
            }
        } else {
            t = new Thread(loop, prefix + (++created));
            t.setDaemon(false);
        }
        workers.add(t);
        live++;
        largest = Math.max(largest, live);
        Rt.start(t, 0);
        Rt.changed();
        return true;
    }

    @Override
    public boolean prestartCoreThread() {
        if (enter() == null) {
            return false; // the JDK's would start a real thread
        }
        return live < getCorePoolSize() && startWorker();
    }

    @Override
    public int prestartAllCoreThreads() {
        if (enter() == null) {
            return 0;
        }
        int n = 0;
        while (live < getCorePoolSize() && startWorker()) {
            n++;
        }
        return n;
    }

    // =====================================================================================
    // Workers

    private boolean terminal() {
        return stopped || shutdown && queue.isEmpty();
    }

    private void workerLoop() {
        TS s = Rt.me();
        Thread me = Thread.currentThread();
        int mine = epoch;
        try {
            for (;;) {
                RunnableScheduledFuture<?> task = take(s, me);
                if (task == null) {
                    return;
                }
                active++;
                if (!stopped) {
                    Rt.clearInterrupt(); // as the JDK's runWorker
                }
                Throwable thrown = null;
                try {
                    beforeExecute(me, task);
                    try {
                        task.run();
                    } catch (Throwable t) {
                        thrown = t;
                        throw t;
                    } finally {
                        afterExecute(task, thrown);
                    }
                } finally {
                    if (epoch == mine) {
                        active--;
                        completed++;
                        Rt.touch(this);
                    }
                }
            }
        } finally {
            if (epoch == mine && Rt.epoch == mine) {
                live--;
                workers.remove(me);
                Rt.touch(this);
                Rt.changed();
                tryTerminate();
            }
        }
    }

    /** The JDK's {@code DelayedWorkQueue.take} with the leader-follower pattern; null when the worker should end. */
    private RunnableScheduledFuture<?> take(TS s, Thread me) {
        for (;;) {
            Rt.touch(this); // reads the queue and the run state: other threads' calls conflict
            if (terminal()) {
                return null;
            }
            if (queue.isEmpty() || leader != null && leader != me) {
                follow(s, me);
                continue;
            }
            RunnableScheduledFuture<?> first = queue.get(0);
            long delay = first.getDelay(TimeUnit.NANOSECONDS);
            if (queue.isEmpty() || queue.get(0) != first) {
                continue; // a decorated task's getDelay let another thread change the queue
            }
            if (delay <= 0) {
                queue.remove(0);
                Rt.touch(first); // whether it was cancelled meanwhile is read now
                Rt.changed();
                return first;
            }
            leader = me;
            try {
                Models.idleFor(s, () -> terminal() || queue.isEmpty() || queue.get(0) != first, this, delay);
            } finally {
                if (leader == me) {
                    leader = null;
                    Rt.changed();
                }
            }
        }
    }

    /** Waits, idle, until this worker is the one to take or lead (the first follower, no leader), or the end. */
    private void follow(TS s, Thread me) {
        followers.add(me);
        try {
            Models.idleUntil(s, () -> terminal() || !queue.isEmpty() && leader == null && followers.get(0) == me, this, () -> true);
        } finally {
            followers.remove(me);
            Rt.changed();
        }
    }

    // =====================================================================================
    // Shutdown and the run state

    @Override
    public void shutdown() {
        if (enter() == null) {
            if (real != null) {
                real.shutdown();
            }
            return;
        }
        if (!shutdown) {
            shutdown = true;
            onShutdown();
        }
        Rt.changed();
        tryTerminate();
    }

    /** The JDK's {@code onShutdown}: cancels what the policies do not keep, and cancelled tasks. */
    private void onShutdown() {
        boolean keepDelayed = getExecuteExistingDelayedTasksAfterShutdownPolicy();
        boolean keepPeriodic = getContinueExistingPeriodicTasksAfterShutdownPolicy();
        for (RunnableScheduledFuture<?> t : new ArrayList<>(queue)) {
            Rt.touch(t); // reads whether it was cancelled
            if ((t.isPeriodic() ? !keepPeriodic : !keepDelayed && t.getDelay(TimeUnit.NANOSECONDS) > 0) || t.isCancelled()) {
                if (queue.remove(t)) {
                    t.cancel(false);
                }
            }
        }
        Rt.changed();
    }

    @Override
    public List<Runnable> shutdownNow() {
        if (enter() == null) {
            return real != null ? real.shutdownNow() : new ArrayList<>();
        }
        shutdown = true;
        stopped = true;
        List<Runnable> pending = new ArrayList<>(queue);
        queue.clear();
        for (Thread w : new ArrayList<>(workers)) {
            Rt.interrupt(w, 0);
        }
        Rt.changed();
        tryTerminate();
        return pending;
    }

    @Override
    public void setContinueExistingPeriodicTasksAfterShutdownPolicy(boolean value) {
        super.setContinueExistingPeriodicTasksAfterShutdownPolicy(value);
        if (enter() != null && !value && shutdown) {
            onShutdown();
        }
    }

    @Override
    public void setExecuteExistingDelayedTasksAfterShutdownPolicy(boolean value) {
        super.setExecuteExistingDelayedTasksAfterShutdownPolicy(value);
        if (enter() != null && !value && shutdown) {
            onShutdown();
        }
    }

    @Override
    public boolean isShutdown() {
        if (enter() == null) {
            return real != null && real.isShutdown();
        }
        return shutdown;
    }

    /** Terminated: shut down, nothing queued, every worker gone. */
    private boolean done() {
        return shutdown && queue.isEmpty() && live == 0;
    }

    /** Calls the {@code terminated()} hook once, when the executor has just terminated. */
    private void tryTerminate() {
        if (done() && !terminatedHookRan) {
            terminatedHookRan = true;
            terminated();
        }
    }

    @Override
    public boolean isTerminated() {
        if (enter() == null) {
            return real != null && real.isTerminated();
        }
        return done();
    }

    @Override
    public boolean isTerminating() {
        if (enter() == null) {
            return real != null && real.isTerminating();
        }
        return shutdown && !done();
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        TS s = enter();
        if (s == null) {
            return real == null ? false : real.awaitTermination(timeout, unit);
        }
        return Models.until(s, this::done, this, "waiting for termination of", true, unit.toNanos(timeout), true);
    }

    // =====================================================================================
    // The queue and the counters, as the model sees them

    @Override
    public BlockingQueue<Runnable> getQueue() {
        if (enter() == null) {
            return real != null ? real.getQueue() : new LinkedBlockingQueue<>();
        }
        return new LinkedBlockingQueue<>(queue); // a snapshot, in firing order
    }

    @Override
    public boolean remove(Runnable task) {
        if (enter() == null) {
            return real != null && real.remove(task);
        }
        return removeQueued(task);
    }

    @Override
    public void purge() {
        if (enter() == null) {
            if (real != null) {
                real.purge();
            }
            return;
        }
        for (RunnableScheduledFuture<?> t : new ArrayList<>(queue)) {
            Rt.touch(t);
            if (t.isCancelled()) {
                queue.remove(t);
            }
        }
        Rt.changed();
    }

    @Override
    public int getPoolSize() {
        return enter() == null ? 0 : live;
    }

    @Override
    public int getActiveCount() {
        return enter() == null ? 0 : active;
    }

    @Override
    public int getLargestPoolSize() {
        return enter() == null ? 0 : largest;
    }

    @Override
    public long getCompletedTaskCount() {
        return enter() == null ? 0 : completed;
    }

    @Override
    public long getTaskCount() {
        return enter() == null ? 0 : completed + active + queue.size();
    }

    @Override
    public String toString() {
        String state = enter() == null ? "Running" : !shutdown ? "Running" : done() ? "Terminated" : "Shutting down";
        return getClass().getName() + "@" + Integer.toHexString(hashCode()) + "[" + state + ", pool size = " + live
                + ", active threads = " + active + ", queued tasks = " + queue.size() + ", completed tasks = " + completed + "]";
    }
}
