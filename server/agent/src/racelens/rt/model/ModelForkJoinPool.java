package racelens.rt.model;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ForkJoinTask;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;
import racelens.rt.Rt;
import racelens.rt.TS;

/**
 * Replaces {@code new ForkJoinPool(...)} and {@code ForkJoinPool.commonPool()} in application
 * code (and is the superclass of application subclasses). The JDK's pool starts its threads only
 * when work arrives, and no work reaches it from a controlled thread: tasks go to a controlled
 * executor ({@link ModelExecutor}) with {@code parallelism} workers, named as the JDK names them
 * ({@code ForkJoinPool-N-worker-M}, {@code ForkJoinPool.commonPool-worker-M}), daemon, with the
 * pool's uncaught-exception handler. Fork/join tasks run through {@link ModelForkJoinTasks}
 * (the JDK's {@code doExec}); a plain {@code Runnable} given to {@code execute} runs as is, and
 * an exception it throws ends its worker as an uncaught exception (a failure of the execution).
 * The common pool has {@code max(2, min(4, processors))} workers and cannot be shut down, as in
 * the JDK; {@code CompletableFuture}'s async stages run on it too.
 *
 * <p>Not modelled: the pool's {@code ForkJoinWorkerThreadFactory} (workers are plain controlled
 * threads, so {@code ForkJoinTask.inForkJoinPool()} is false on them), async mode, and a
 * {@code ForkJoinPool.managedBlock} blocker. Calls from threads racelens does not control go to
 * the JDK's own pool (real threads; project code they run during an execution ends it as
 * {@code uncontrolled}).
 *
 * <p>State: the model executor (whose workers and queue are per execution) and, per execution,
 * the common pool's model.
 */
public class ModelForkJoinPool extends java.util.concurrent.ForkJoinPool {
    /** A worker of a model pool: forks from it go to its pool. */
    static final class Worker extends Thread {
        final ModelForkJoinPool pool;

        Worker(Runnable loop, String name, ModelForkJoinPool pool) {
            super(loop, name);
            this.pool = pool;
        }
    }

    private static ModelForkJoinPool common;
    private static int poolSeq;
    private static int poolEpoch = -1;

    final ModelExecutor executor;
    private final int parallelism;
    private final boolean isCommon;

    public ModelForkJoinPool() {
        this(Math.min(0x7fff, Runtime.getRuntime().availableProcessors()));
    }

    public ModelForkJoinPool(int parallelism) {
        super(parallelism);
        this.parallelism = parallelism;
        this.isCommon = false;
        this.executor = executor("ForkJoinPool-" + nextPoolId() + "-worker-", null);
    }

    public ModelForkJoinPool(int parallelism, ForkJoinWorkerThreadFactory factory, Thread.UncaughtExceptionHandler handler,
            boolean asyncMode) {
        super(parallelism, factory, handler, asyncMode);
        this.parallelism = parallelism;
        this.isCommon = false;
        this.executor = executor("ForkJoinPool-" + nextPoolId() + "-worker-", handler);
    }

    public ModelForkJoinPool(int parallelism, ForkJoinWorkerThreadFactory factory, Thread.UncaughtExceptionHandler handler,
            boolean asyncMode, int corePoolSize, int maximumPoolSize, int minimumRunnable,
            Predicate<? super java.util.concurrent.ForkJoinPool> saturate, long keepAliveTime, TimeUnit unit) {
        super(parallelism, factory, handler, asyncMode, corePoolSize, maximumPoolSize, minimumRunnable, saturate, keepAliveTime, unit);
        this.parallelism = parallelism;
        this.isCommon = false;
        this.executor = executor("ForkJoinPool-" + nextPoolId() + "-worker-", handler);
    }

    /** The common pool's model. */
    private ModelForkJoinPool(int parallelism, boolean isCommon) {
        super(parallelism);
        this.parallelism = parallelism;
        this.isCommon = isCommon;
        this.executor = executor("ForkJoinPool.commonPool-worker-", null);
    }

    private ModelExecutor executor(String prefix, Thread.UncaughtExceptionHandler handler) {
        ModelForkJoinPool pool = this;
        ModelExecutor[] self = new ModelExecutor[1];
        ThreadFactory workers = loop -> {
            Worker w = new Worker(loop, prefix + (self[0].workers.size() + 1), pool);
            w.setDaemon(true);
            if (handler != null) {
                w.setUncaughtExceptionHandler(handler);
            }
            return w;
        };
        self[0] = new ModelExecutor(parallelism, workers, prefix);
        return self[0];
    }

    /** {@code ForkJoinPool-N}: pools numbered per execution, as the JDK numbers them in a fresh JVM. */
    private static synchronized int nextPoolId() {
        if (poolEpoch != Rt.epoch) {
            poolEpoch = Rt.epoch;
            poolSeq = 0;
        }
        return ++poolSeq;
    }

    /** Replaces {@code ForkJoinPool.commonPool()} in application code. */
    public static java.util.concurrent.ForkJoinPool commonPool() {
        return commonModel();
    }

    /** The common pool's model, fresh in every execution. */
    static synchronized ModelForkJoinPool commonModel() {
        if (common == null || common.executor.epoch != Rt.epoch) {
            common = new ModelForkJoinPool(Math.max(2, Math.min(4, Runtime.getRuntime().availableProcessors())), true);
        }
        return common;
    }

    /** Queues a fork/join task on this pool (the calling thread is controlled). */
    void push(ForkJoinTask<?> task) {
        executor.execute(ModelForkJoinTasks.job(task, this));
        Rt.touch(executor);
    }

    private void pushRunnable(Runnable task) {
        executor.execute(task);
        Rt.touch(executor);
    }

    private TS enter() {
        TS s = Rt.me();
        if (s != null) {
            Rt.touch(this); // also when called through an application subclass (no call point then)
            Rt.touch(executor); // its workers touch the executor, not the pool
        }
        return s;
    }

    // =====================================================================================
    // Submission

    @Override
    public <T> T invoke(ForkJoinTask<T> task) {
        if (task == null) {
            throw new NullPointerException();
        }
        TS s = enter();
        if (s == null) {
            return super.invoke(task);
        }
        push(task);
        awaitInvoked(s, task);
        return task.join();
    }

    @Override
    public void execute(ForkJoinTask<?> task) {
        if (task == null) {
            throw new NullPointerException();
        }
        if (enter() == null) {
            super.execute(task);
            return;
        }
        push(task);
    }

    @Override
    public void execute(Runnable task) {
        if (task == null) {
            throw new NullPointerException();
        }
        if (enter() == null) {
            super.execute(task);
            return;
        }
        if (task instanceof ForkJoinTask) {
            push((ForkJoinTask<?>) task);
        } else {
            pushRunnable(task);
        }
    }

    @Override
    public <T> ForkJoinTask<T> submit(ForkJoinTask<T> task) {
        if (task == null) {
            throw new NullPointerException();
        }
        if (enter() == null) {
            return super.submit(task);
        }
        push(task);
        return task;
    }

    @Override
    public <T> ForkJoinTask<T> submit(Callable<T> task) {
        if (enter() == null) {
            return super.submit(task);
        }
        ForkJoinTask<T> t = ForkJoinTask.adapt(task);
        push(t);
        return t;
    }

    @Override
    public <T> ForkJoinTask<T> submit(Runnable task, T result) {
        if (enter() == null) {
            return super.submit(task, result);
        }
        ForkJoinTask<T> t = ForkJoinTask.adapt(task, result);
        push(t);
        return t;
    }

    @Override
    public ForkJoinTask<?> submit(Runnable task) {
        if (enter() == null) {
            return super.submit(task);
        }
        ForkJoinTask<?> t = task instanceof ForkJoinTask ? (ForkJoinTask<?>) task : ForkJoinTask.adapt(task);
        push(t);
        return t;
    }

    @Override
    public <T> List<Future<T>> invokeAll(Collection<? extends Callable<T>> tasks) {
        TS s = enter();
        if (s == null) {
            return super.invokeAll(tasks);
        }
        List<Future<T>> futures = new ArrayList<>(tasks.size());
        for (Callable<T> c : tasks) {
            ForkJoinTask<T> t = ForkJoinTask.adapt(c);
            futures.add(t);
            push(t);
        }
        for (Future<T> f : futures) {
            awaitInvoked(s, (ForkJoinTask<?>) f);
        }
        return futures;
    }

    /**
     * The end of {@code invoke}/{@code invokeAll}: an external caller waits for a worker (as the
     * JDK's does); a worker of this pool runs the task itself if no other worker has taken it,
     * as the JDK's helps, so that nested invocations cannot starve the pool.
     */
    private void awaitInvoked(TS s, ForkJoinTask<?> task) {
        Thread t = Thread.currentThread();
        if (t instanceof Worker && ((Worker) t).pool == this) {
            ModelForkJoinTasks.helpJoin(s, task);
        } else {
            Models.untilUninterruptibly(s, task::isDone, task, "waiting for");
        }
    }

    @Override
    public <T> List<Future<T>> invokeAll(Collection<? extends Callable<T>> tasks, long timeout, TimeUnit unit)
            throws InterruptedException {
        TS s = enter();
        if (s == null) {
            return super.invokeAll(tasks, timeout, unit);
        }
        long deadline = Rt.nanoTime() + unit.toNanos(timeout);
        List<Future<T>> futures = new ArrayList<>(tasks.size());
        for (Callable<T> c : tasks) {
            ForkJoinTask<T> t = ForkJoinTask.adapt(c);
            futures.add(t);
            push(t);
        }
        boolean timedOut = false;
        for (Future<T> f : futures) {
            ForkJoinTask<?> t = (ForkJoinTask<?>) f;
            if (!timedOut && !Models.until(s, t::isDone, t, "waiting for", true, deadline - Rt.nanoTime(), true)) {
                timedOut = true;
            }
            if (timedOut && !t.isDone()) {
                t.cancel(false);
            }
        }
        return futures;
    }

    @Override
    public <T> T invokeAny(Collection<? extends Callable<T>> tasks) throws InterruptedException, ExecutionException {
        return enter() == null ? super.invokeAny(tasks) : ModelInvokeAny.invokeAny(this, tasks);
    }

    @Override
    public <T> T invokeAny(Collection<? extends Callable<T>> tasks, long timeout, TimeUnit unit)
            throws InterruptedException, ExecutionException, TimeoutException {
        return enter() == null ? super.invokeAny(tasks, timeout, unit) : ModelInvokeAny.invokeAny(this, tasks, unit.toNanos(timeout));
    }

    // =====================================================================================
    // Run state (the common pool is never shut down, as in the JDK)

    @Override
    public void shutdown() {
        if (enter() == null) {
            super.shutdown();
            return;
        }
        if (!isCommon) {
            executor.shutdown();
        }
    }

    @Override
    public List<Runnable> shutdownNow() {
        if (enter() == null) {
            return super.shutdownNow();
        }
        if (!isCommon) {
            for (Runnable r : executor.shutdownNow()) {
                if (r instanceof ModelForkJoinTasks.Job) {
                    ((ModelForkJoinTasks.Job) r).task.cancel(false); // the JDK cancels queued tasks
                }
            }
        }
        return new ArrayList<>(); // the JDK's always returns an empty list
    }

    @Override
    public boolean isShutdown() {
        return enter() == null ? super.isShutdown() : !isCommon && executor.isShutdown();
    }

    @Override
    public boolean isTerminated() {
        return enter() == null ? super.isTerminated() : !isCommon && executor.isTerminated();
    }

    @Override
    public boolean isTerminating() {
        return enter() == null ? super.isTerminating() : !isCommon && executor.isShutdown() && !executor.isTerminated();
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        if (enter() == null) {
            return super.awaitTermination(timeout, unit);
        }
        if (isCommon) {
            awaitQuiescence(timeout, unit); // the JDK's common pool never terminates
            return false;
        }
        return executor.awaitTermination(timeout, unit);
    }

    /** No task queued or running. */
    private boolean quiescent() {
        return executor.epoch != Rt.epoch || executor.queue.isEmpty() && executor.idle == executor.live;
    }

    @Override
    public boolean awaitQuiescence(long timeout, TimeUnit unit) {
        TS s = enter();
        if (s == null) {
            return super.awaitQuiescence(timeout, unit);
        }
        try {
            return Models.until(s, this::quiescent, executor, "waiting for quiescence of", true, unit.toNanos(timeout), false);
        } catch (InterruptedException e) {
            throw new AssertionError(e); // not interruptible
        }
    }

    @Override
    public boolean isQuiescent() {
        return enter() == null ? super.isQuiescent() : quiescent();
    }

    @Override
    public int getParallelism() {
        return parallelism;
    }

    @Override
    public int getPoolSize() {
        return enter() == null || executor.epoch != Rt.epoch ? super.getPoolSize() : executor.live;
    }

    @Override
    public int getActiveThreadCount() {
        return enter() == null || executor.epoch != Rt.epoch ? super.getActiveThreadCount() : executor.live - executor.idle;
    }

    @Override
    public int getRunningThreadCount() {
        return getActiveThreadCount();
    }
}
