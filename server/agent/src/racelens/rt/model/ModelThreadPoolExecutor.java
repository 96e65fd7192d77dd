package racelens.rt.model;

import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.RejectedExecutionHandler;
import java.util.concurrent.RunnableFuture;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

/**
 * Replaces {@code new ThreadPoolExecutor(...)}: the real pool never starts a thread; tasks go to
 * a controlled executor with {@code max(core, 1)} workers (the queue argument is not used).
 */
public class ModelThreadPoolExecutor extends java.util.concurrent.ThreadPoolExecutor {
    private final ModelExecutor model;

    public ModelThreadPoolExecutor(int core, int max, long keepAlive, TimeUnit unit, BlockingQueue<Runnable> q) {
        super(core, max, keepAlive, unit, q);
        model = new ModelExecutor(Math.max(1, core), null);
    }

    public ModelThreadPoolExecutor(int core, int max, long keepAlive, TimeUnit unit, BlockingQueue<Runnable> q,
            ThreadFactory f) {
        super(core, max, keepAlive, unit, q, f);
        model = new ModelExecutor(Math.max(1, core), f);
    }

    public ModelThreadPoolExecutor(int core, int max, long keepAlive, TimeUnit unit, BlockingQueue<Runnable> q,
            RejectedExecutionHandler h) {
        super(core, max, keepAlive, unit, q, h);
        model = new ModelExecutor(Math.max(1, core), null);
    }

    public ModelThreadPoolExecutor(int core, int max, long keepAlive, TimeUnit unit, BlockingQueue<Runnable> q,
            ThreadFactory f, RejectedExecutionHandler h) {
        super(core, max, keepAlive, unit, q, f, h);
        model = new ModelExecutor(Math.max(1, core), f);
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
    public void execute(Runnable command) {
        model.execute(command);
    }

    @Override
    public void shutdown() {
        model.shutdown();
    }

    @Override
    public List<Runnable> shutdownNow() {
        return model.shutdownNow();
    }

    @Override
    public boolean isShutdown() {
        return model.isShutdown();
    }

    @Override
    public boolean isTerminated() {
        return model.isTerminated();
    }

    @Override
    public boolean isTerminating() {
        return model.isShutdown() && !model.isTerminated();
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        return model.awaitTermination(timeout, unit);
    }
}
