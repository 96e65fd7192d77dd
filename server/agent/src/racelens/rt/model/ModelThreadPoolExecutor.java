package racelens.rt.model;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionHandler;
import java.util.concurrent.RunnableFuture;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import racelens.rt.Readers;
import racelens.rt.Rt;
import racelens.rt.TS;

/**
 * Replaces {@code new ThreadPoolExecutor(...)} and the pools of {@code Executors.newFixedThreadPool}
 * and {@code newCachedThreadPool} (and is the superclass of the application's subclasses). The
 * JDK's pool never starts a thread; the model runs the JDK's algorithm on controlled workers:
 * {@code execute} starts a worker for the task while fewer than the core size run, else queues it
 * in the pool's own work queue ({@code getQueue()}, which the application gave; a
 * {@code SynchronousQueue} hands the task to an idle worker, or refuses it), else starts a worker
 * up to the maximum size, else rejects it through the pool's handler. Workers take queued tasks;
 * a worker beyond the core size (or any, with {@code allowCoreThreadTimeOut}) that stays idle for
 * the keep-alive time ends (logical time: it elapses when nothing else can run). Each task runs
 * between {@code beforeExecute} and {@code afterExecute} with the interrupt status cleared, as in
 * {@code runWorker}; {@code terminated()} runs once the pool is shut down, its queue empty and
 * its workers gone. {@code shutdownNow} interrupts the workers in the model.
 *
 * <p>Every query answers from the model: {@code getPoolSize}, {@code getActiveCount},
 * {@code getLargestPoolSize}, {@code getTaskCount}, {@code getCompletedTaskCount}, the core and
 * maximum sizes ({@code setCorePoolSize}, {@code setMaximumPoolSize}), {@code prestartCoreThread},
 * {@code prestartAllCoreThreads}, {@code remove}, {@code purge}, the run state and
 * {@code toString}. The timed {@code invokeAll} and {@code invokeAny} wait in logical time.
 *
 * <p>Calls from threads racelens does not control (outside executions) run the task in the
 * caller. State: the sizes (the JDK's setters would start real threads) and the thread factory;
 * per execution (reset lazily when {@link Rt#epoch} moves on) the workers, the hand-offs, the
 * counters. A pool kept in a static field stays shut down, as the other executors do.
 */
public class ModelThreadPoolExecutor extends ThreadPoolExecutor implements Readers {
    /** The JDK methods that only read the pool (their call points read it: {@link Readers}). */
    private static final java.util.Set<String> READERS = java.util.Set.of("getPoolSize", "getActiveCount", "getLargestPoolSize",
            "getTaskCount", "getCompletedTaskCount", "getCorePoolSize", "getMaximumPoolSize", "getKeepAliveTime",
            "allowsCoreThreadTimeOut", "isShutdown", "isTerminated", "isTerminating", "getThreadFactory",
            "getRejectedExecutionHandler", "toString");

    /** The factory given or set; null: the JDK's default, whose threads the model names per execution ({@code pool-N-thread-M}). */
    private ThreadFactory factory;
    private final String prefix;
    private int core;
    private int max;

    /** A worker: its thread, the task it starts with, whether it runs a task, how many it completed. */
    private static final class Worker {
        Thread thread;
        Runnable first;
        boolean active;
        long completed;
    }

    private int epoch = -1;
    private final ArrayList<Worker> workers = new ArrayList<>();
    /** Tasks offered to a {@code SynchronousQueue}, each taken by an idle worker. */
    private final ArrayDeque<Runnable> handoffs = new ArrayDeque<>();
    private int idle;
    private int created;
    private int largest;
    private long completed;
    /** Moves on whenever idle workers must look again (a size or time changed, the pool shut down). */
    private int version;
    private boolean shutdown;
    private boolean stopped;
    private boolean terminating;
    private boolean terminated;

    public ModelThreadPoolExecutor(int core, int max, long keepAlive, TimeUnit unit, BlockingQueue<Runnable> q) {
        super(core, max, keepAlive, unit, q);
        this.core = core;
        this.max = max;
        this.prefix = ModelExecutor.nextPoolPrefix();
    }

    public ModelThreadPoolExecutor(int core, int max, long keepAlive, TimeUnit unit, BlockingQueue<Runnable> q,
            ThreadFactory f) {
        super(core, max, keepAlive, unit, q, f);
        this.core = core;
        this.max = max;
        this.factory = f;
        this.prefix = null;
    }

    public ModelThreadPoolExecutor(int core, int max, long keepAlive, TimeUnit unit, BlockingQueue<Runnable> q,
            RejectedExecutionHandler h) {
        super(core, max, keepAlive, unit, q, h);
        this.core = core;
        this.max = max;
        this.prefix = ModelExecutor.nextPoolPrefix();
    }

    public ModelThreadPoolExecutor(int core, int max, long keepAlive, TimeUnit unit, BlockingQueue<Runnable> q,
            ThreadFactory f, RejectedExecutionHandler h) {
        super(core, max, keepAlive, unit, q, f, h);
        this.core = core;
        this.max = max;
        this.factory = f;
        this.prefix = null;
    }

    private void fresh() {
        if (epoch != Rt.epoch) { // the workers of an earlier execution are gone, and its tasks
            epoch = Rt.epoch;
            workers.clear();
            handoffs.clear();
            getQueue().clear();
            idle = 0;
            created = 0;
            largest = 0;
            completed = 0;
        }
    }

    @Override
    public boolean readsOnly(String name) {
        return READERS.contains(name);
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

    /** {@link #enter} for a query: it reads the pool. */
    private TS query() {
        TS s = Rt.me();
        if (s != null) {
            fresh();
            Rt.touchRead(this);
        }
        return s;
    }

    private boolean synchronous() {
        return getQueue() instanceof SynchronousQueue;
    }

    private boolean queueEmpty() {
        return handoffs.isEmpty() && getQueue().isEmpty();
    }

    // =====================================================================================
    // execute, as the JDK's

    @Override
    public void execute(Runnable command) {
        if (command == null) {
            throw new NullPointerException();
        }
        if (enter() == null) {
            command.run(); // outside executions (e.g. @BeforeClass): run in the caller
            return;
        }
        if (workers.size() < core && addWorker(command, true)) {
            return;
        }
        if (!shutdown && offer(command)) {
            if (workers.isEmpty()) {
                addWorker(null, false);
            }
        } else if (!addWorker(command, false)) {
            getRejectedExecutionHandler().rejectedExecution(command, this);
        }
    }

    /** The work queue's {@code offer}: a synchronous queue takes a task only for an idle worker. */
    private boolean offer(Runnable command) {
        boolean ok;
        if (synchronous()) {
            ok = idle > handoffs.size() && handoffs.add(command);
        } else {
            ok = getQueue().offer(command);
        }
        Rt.changed();
        return ok;
    }

    /** The JDK's {@code addWorker}: false when shut down (unless to drain the queue), at the bound, or without a thread. */
    private boolean addWorker(Runnable first, boolean isCore) {
        if (shutdown && (stopped || first != null || queueEmpty())) {
            return false;
        }
        if (workers.size() >= (isCore ? core : max)) {
            return false;
        }
        Worker w = new Worker();
        w.first = first;
        Runnable loop = () -> runWorker(w);
        Thread t = factory != null ? factory.newThread(loop) : new Thread(loop, prefix + (++created));
        if (t == null) {
            return false;
        }
        w.thread = t;
        workers.add(w);
        largest = Math.max(largest, workers.size());
        Rt.touch(this);
        Rt.start(t, 0);
        Rt.changed();
        return true;
    }

    // =====================================================================================
    // Workers

    /** The JDK's {@code runWorker}: its first task, then queued ones, each between the hooks. */
    private void runWorker(Worker w) {
        int mine = epoch;
        Runnable task = w.first;
        w.first = null;
        boolean abrupt = true;
        try {
            while (task != null || (task = getTask()) != null) {
                w.active = true;
                Rt.touch(w); // its own state: the pool's queries read every worker's
                if (stopped) {
                    Rt.interruptNow(w.thread);
                } else {
                    Rt.clearInterrupt();
                }
                try {
                    beforeExecute(w.thread, task);
                    try {
                        task.run();
                        afterExecute(task, null);
                    } catch (Throwable ex) {
                        afterExecute(task, ex);
                        throw ex;
                    }
                } finally {
                    task = null;
                    if (epoch == mine) {
                        w.completed++;
                        w.active = false;
                        Rt.touch(w);
                        Rt.changed();
                    }
                }
            }
            abrupt = false;
        } finally {
            if (epoch == mine && Rt.epoch == mine && !Rt.isOver()) {
                workerExit(w, abrupt);
            }
        }
    }

    /** The JDK's {@code getTask}: the next task, or null when this worker should end. */
    private Runnable getTask() {
        TS s = Rt.me();
        boolean timedOut = false;
        for (;;) {
            Rt.touchRead(this); // reads the queue and the run state
            if (shutdown && (stopped || queueEmpty())) {
                return null;
            }
            int wc = workers.size();
            boolean timed = allowsCoreThreadTimeOut() || wc > core;
            if ((wc > max || timed && timedOut) && (wc > 1 || queueEmpty())) {
                return null;
            }
            Runnable r = !handoffs.isEmpty() ? handoffs.poll() : getQueue().poll();
            if (r != null) {
                Rt.touch(this);
                Rt.changed();
                return r;
            }
            long keepAlive = timed ? getKeepAliveTime(TimeUnit.NANOSECONDS) : 0;
            if (timed && keepAlive <= 0) {
                timedOut = true; // the JDK's poll(0) finds nothing
                continue;
            }
            int seen = version;
            idle++;
            try {
                timedOut = !Models.idleReading(s, () -> !queueEmpty() || version != seen, this, keepAlive);
            } finally {
                idle--;
            }
        }
    }

    /** The JDK's {@code processWorkerExit}: counts its tasks, may end the pool, replaces it when needed. */
    private void workerExit(Worker w, boolean abrupt) {
        Rt.touch(w);
        completed += w.completed;
        workers.remove(w);
        Rt.touch(this);
        Rt.changed();
        tryTerminate();
        if (stopped) {
            return;
        }
        if (!abrupt) {
            int min = allowsCoreThreadTimeOut() ? 0 : core;
            if (min == 0 && !queueEmpty()) {
                min = 1;
            }
            if (workers.size() >= min) {
                return;
            }
        }
        addWorker(null, false);
    }

    /** Idle workers look again (the JDK interrupts them: {@code interruptIdleWorkers}). */
    private void wakeIdle() {
        version++;
        Rt.changed();
    }

    // =====================================================================================
    // Shutdown and the run state

    private void tryTerminate() {
        if (shutdown && !terminating && workers.isEmpty() && (stopped || queueEmpty())) {
            terminating = true;
            try {
                terminated();
            } finally {
                terminated = true;
                Rt.touch(this);
                Rt.changed();
            }
        }
    }

    @Override
    public void shutdown() {
        if (enter() == null) {
            shutdown = true;
            return;
        }
        shutdown = true;
        wakeIdle();
        tryTerminate();
    }

    @Override
    public List<Runnable> shutdownNow() {
        ArrayList<Runnable> pending = new ArrayList<>();
        if (enter() == null) {
            shutdown = true;
            stopped = true;
            return pending;
        }
        shutdown = true;
        stopped = true;
        for (Worker w : new ArrayList<>(workers)) {
            Rt.interruptNow(w.thread);
        }
        pending.addAll(handoffs);
        handoffs.clear();
        getQueue().drainTo(pending);
        wakeIdle();
        tryTerminate();
        return pending;
    }

    @Override
    public boolean isShutdown() {
        query();
        return shutdown;
    }

    @Override
    public boolean isTerminating() {
        query();
        return shutdown && !terminated;
    }

    @Override
    public boolean isTerminated() {
        query();
        return terminated;
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        TS s = query();
        if (s == null) {
            return terminated;
        }
        return Models.until(s, () -> terminated, this, "waiting for termination of", true, unit.toNanos(timeout), true);
    }

    // =====================================================================================
    // Sizes, times, the factory

    @Override
    public void setCorePoolSize(int corePoolSize) {
        if (corePoolSize < 0 || max < corePoolSize) {
            throw new IllegalArgumentException();
        }
        int delta = corePoolSize - core;
        core = corePoolSize;
        if (enter() == null) {
            return;
        }
        if (workers.size() > corePoolSize) {
            wakeIdle();
        } else if (delta > 0) {
            // as the JDK's: enough new workers for the queued tasks, at most the new ones
            int k = Math.min(delta, getQueue().size() + handoffs.size());
            while (k-- > 0 && addWorker(null, true)) {
                if (queueEmpty()) {
                    break;
                }
            }
        }
    }

    @Override
    public int getCorePoolSize() {
        return core;
    }

    @Override
    public void setMaximumPoolSize(int maximumPoolSize) {
        if (maximumPoolSize <= 0 || maximumPoolSize < core) {
            throw new IllegalArgumentException();
        }
        max = maximumPoolSize;
        if (enter() != null && workers.size() > max) {
            wakeIdle();
        }
    }

    @Override
    public int getMaximumPoolSize() {
        return max;
    }

    @Override
    public void allowCoreThreadTimeOut(boolean value) {
        super.allowCoreThreadTimeOut(value); // its checks; it interrupts the JDK's workers, which never exist
        if (enter() != null) {
            wakeIdle();
        }
    }

    @Override
    public void setKeepAliveTime(long time, TimeUnit unit) {
        super.setKeepAliveTime(time, unit);
        if (enter() != null) {
            wakeIdle();
        }
    }

    @Override
    public void setThreadFactory(ThreadFactory threadFactory) {
        super.setThreadFactory(threadFactory);
        factory = threadFactory;
    }

    @Override
    public boolean prestartCoreThread() {
        return enter() != null && workers.size() < core && addWorker(null, true);
    }

    @Override
    public int prestartAllCoreThreads() {
        if (enter() == null) {
            return 0;
        }
        int n = 0;
        while (addWorker(null, true)) {
            n++;
        }
        return n;
    }

    // =====================================================================================
    // Tasks and counters, as the model sees them

    @Override
    protected <T> RunnableFuture<T> newTaskFor(Runnable runnable, T value) {
        return new ModelFutureTask<>(runnable, value);
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

    @Override
    public boolean remove(Runnable task) {
        TS s = enter();
        boolean removed = s != null && handoffs.remove(task) || getQueue().remove(task);
        if (s != null) {
            Rt.changed();
            tryTerminate();
        }
        return removed;
    }

    @Override
    public void purge() {
        super.purge(); // removes the cancelled futures from the queue (its own termination check sees the JDK's idle pool)
        if (enter() != null) {
            Rt.changed();
            tryTerminate();
        }
    }

    @Override
    public int getPoolSize() {
        return query() == null || terminated ? 0 : workers.size();
    }

    /** The workers, each one's state read (for the counters). */
    private List<Worker> workersRead() {
        for (Worker w : workers) {
            Rt.touchRead(w);
        }
        return workers;
    }

    @Override
    public int getActiveCount() {
        if (query() == null) {
            return 0;
        }
        int n = 0;
        for (Worker w : workersRead()) {
            n += w.active ? 1 : 0;
        }
        return n;
    }

    @Override
    public int getLargestPoolSize() {
        return query() == null ? 0 : largest;
    }

    @Override
    public long getTaskCount() {
        if (query() == null) {
            return 0;
        }
        long n = completed + getQueue().size() + handoffs.size();
        for (Worker w : workersRead()) {
            n += w.completed + (w.active ? 1 : 0);
        }
        return n;
    }

    @Override
    public long getCompletedTaskCount() {
        if (query() == null) {
            return 0;
        }
        long n = completed;
        for (Worker w : workersRead()) {
            n += w.completed;
        }
        return n;
    }

    @Override
    public String toString() {
        boolean controlled = query() != null;
        String state = !shutdown ? "Running" : terminated ? "Terminated" : "Shutting down";
        return Models.identity(this, ThreadPoolExecutor.class) + "[" + state + ", pool size = " + (controlled ? getPoolSize() : 0)
                + ", active threads = " + (controlled ? getActiveCount() : 0) + ", queued tasks = " + getQueue().size()
                + ", completed tasks = " + (controlled ? getCompletedTaskCount() : 0) + "]";
    }
}
