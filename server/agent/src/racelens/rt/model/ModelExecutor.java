package racelens.rt.model;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.RunnableFuture;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import racelens.rt.Rt;
import racelens.rt.TS;

/**
 * The controlled executor: tasks run on worker threads that are controlled threads (numbered in
 * start order), started on demand up to {@code maxWorkers}. Idle workers are not a deadlock.
 */
public class ModelExecutor extends AbstractExecutorService {
    private static int poolSeq;
    private static int poolSeqEpoch = -1;

    final int maxWorkers;
    final ThreadFactory factory;
    final String prefix;
    final ArrayDeque<Runnable> queue = new ArrayDeque<>();
    final ArrayList<Thread> workers = new ArrayList<>();
    int idle;
    int live;
    boolean shutdown;
    /** {@code shutdownNow()} was called: workers keep their interrupts. */
    boolean stopped;
    int epoch = Rt.epoch;

    public ModelExecutor(int maxWorkers, ThreadFactory factory) {
        this(maxWorkers, factory, nextPoolPrefix());
    }

    /** Workers named {@code prefix} + number when {@code factory} is null (ForkJoinPool names its own). */
    ModelExecutor(int maxWorkers, ThreadFactory factory, String prefix) {
        if (maxWorkers <= 0) {
            throw new IllegalArgumentException("pool size must be positive");
        }
        this.maxWorkers = maxWorkers;
        this.factory = factory;
        this.prefix = prefix;
    }

    /** {@code pool-N-thread-}: the names of {@code Executors.defaultThreadFactory()}, pools numbered per execution. */
    static synchronized String nextPoolPrefix() {
        if (poolSeqEpoch != Rt.epoch) {
            poolSeqEpoch = Rt.epoch;
            poolSeq = 0;
        }
        return "pool-" + (++poolSeq) + "-thread-";
    }

    private void fresh() {
        if (epoch != Rt.epoch) { // workers of an earlier execution are gone
            epoch = Rt.epoch;
            queue.clear();
            workers.clear();
            idle = 0;
            live = 0;
        }
    }

    @Override
    protected <T> RunnableFuture<T> newTaskFor(Runnable runnable, T value) {
        return new ModelFutureTask<>(runnable, value);
    }

    @Override
    protected <T> RunnableFuture<T> newTaskFor(Callable<T> callable) {
        return new ModelFutureTask<>(callable);
    }

    @Override
    public void execute(Runnable task) {
        if (task == null) {
            throw new NullPointerException();
        }
        TS s = Rt.me();
        if (s == null) {
            task.run(); // outside executions (e.g. @BeforeClass): run in the caller
            return;
        }
        fresh();
        if (shutdown) {
            throw new RejectedExecutionException("executor has been shut down");
        }
        queue.add(task);
        if (workers.size() < maxWorkers && idle < queue.size()) {
            Thread t;
            Runnable loop = this::workerLoop;
            if (factory != null) {
                t = factory.newThread(loop);
                if (t == null) {
                    queue.removeLast();
                    throw new RejectedExecutionException("thread factory returned null");
                }
            } else {
                t = new Thread(loop, prefix + (workers.size() + 1));
            }
            workers.add(t);
            live++;
            Rt.start(t, 0);
        }
        Rt.changed();
    }

    private void workerLoop() {
        TS s = Rt.me();
        try {
            for (;;) {
                idle++;
                try {
                    Models.idleUntil(s, () -> !queue.isEmpty() || shutdown, this, () -> !shutdown);
                } finally {
                    idle--;
                }
                Runnable task = queue.poll();
                Rt.touch(this);
                if (task == null) {
                    return; // shut down and drained
                }
                Rt.changed();
                if (!stopped) {
                    Rt.clearInterrupt(); // as the JDK's workers: an interrupt meant for the last task ends with it
                }
                task.run();
                Rt.changed(); // what the task completed (a future, an async stage) may let a waiter go on
            }
        } finally {
            if (epoch == Rt.epoch) {
                live--;
                Rt.changed();
            }
        }
    }

    @Override
    public void shutdown() {
        fresh();
        shutdown = true;
        Rt.changed();
    }

    @Override
    public List<Runnable> shutdownNow() {
        fresh();
        shutdown = true;
        stopped = true;
        List<Runnable> pending = new ArrayList<>(queue);
        queue.clear();
        for (Thread w : workers) {
            Rt.interrupt(w, 0);
        }
        Rt.changed();
        return pending;
    }

    @Override
    public boolean isShutdown() {
        fresh();
        return shutdown;
    }

    @Override
    public boolean isTerminated() {
        fresh();
        return shutdown && live == 0;
    }

    @Override
    public <T> T invokeAny(java.util.Collection<? extends Callable<T>> tasks) throws InterruptedException, java.util.concurrent.ExecutionException {
        return Rt.me() == null ? super.invokeAny(tasks) : ModelInvokeAny.invokeAny(this, tasks);
    }

    @Override
    public <T> T invokeAny(java.util.Collection<? extends Callable<T>> tasks, long timeout, TimeUnit unit)
            throws InterruptedException, java.util.concurrent.ExecutionException, java.util.concurrent.TimeoutException {
        return Rt.me() == null ? super.invokeAny(tasks, timeout, unit) : ModelInvokeAny.invokeAny(this, tasks, unit.toNanos(timeout));
    }

    @Override
    public <T> List<java.util.concurrent.Future<T>> invokeAll(java.util.Collection<? extends Callable<T>> tasks, long timeout, TimeUnit unit)
            throws InterruptedException {
        return Rt.me() == null ? super.invokeAll(tasks, timeout, unit) : ModelInvokeAny.invokeAll(this, tasks, unit.toNanos(timeout), this::newTaskFor);
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        TS s = Rt.me();
        if (s == null) {
            return isTerminated();
        }
        return Models.until(s, this::isTerminated, this, "waiting for termination of", true, unit.toNanos(timeout), true);
    }
}
