package racelens.rt.model;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import racelens.rt.Rt;

/**
 * Replacements of {@code Executors.*} (scheduled executors included) and of the static
 * {@code CompletableFuture} factories (async without an executor, completed and failed futures
 * and stages, delayed executors): every future they make is a model future, and every task runs
 * on a controlled thread. State: the per-execution delay scheduler.
 */
public final class ModelExecutors {
    private ModelExecutors() {}

    /** The stand-in for the common pool: the controlled executor of its model, fresh in every execution. */
    static ModelExecutor commonPool() {
        return ModelForkJoinPool.commonModel().executor;
    }

    private static ModelScheduledThreadPoolExecutor delayer;

    /**
     * The stand-in for {@code CompletableFuture}'s delay scheduler (timeouts, delayed executors):
     * a model scheduled executor with one daemon worker named as the JDK's, fresh in every
     * execution, removing cancelled timeouts as the JDK's does.
     */
    static synchronized ModelScheduledThreadPoolExecutor delayer() {
        if (delayer == null || delayerEpoch != Rt.epoch) {
            delayerEpoch = Rt.epoch;
            delayer = new ModelScheduledThreadPoolExecutor(1, r -> {
                Thread t = new Thread(r, "CompletableFutureDelayScheduler");
                t.setDaemon(true);
                return t;
            });
            delayer.setRemoveOnCancelPolicy(true);
        }
        return delayer;
    }

    private static int delayerEpoch = -1;

    /** A {@code ThreadPoolExecutor}, as the JDK's (callers cast it to tune or query the pool). */
    public static ExecutorService newFixedThreadPool(int n) {
        return new ModelThreadPoolExecutor(n, n, 0L, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<Runnable>());
    }

    public static ExecutorService newFixedThreadPool(int n, ThreadFactory f) {
        return new ModelThreadPoolExecutor(n, n, 0L, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<Runnable>(), f);
    }

    public static ExecutorService newCachedThreadPool() {
        return new ModelThreadPoolExecutor(0, Integer.MAX_VALUE, 60L, TimeUnit.SECONDS, new SynchronousQueue<Runnable>());
    }

    public static ExecutorService newCachedThreadPool(ThreadFactory f) {
        return new ModelThreadPoolExecutor(0, Integer.MAX_VALUE, 60L, TimeUnit.SECONDS, new SynchronousQueue<Runnable>(), f);
    }

    public static ExecutorService newSingleThreadExecutor() {
        return new ModelExecutor(1, null);
    }

    public static ExecutorService newSingleThreadExecutor(ThreadFactory f) {
        return new ModelExecutor(1, f);
    }

    public static ExecutorService newWorkStealingPool() {
        return new ModelExecutor(2, null);
    }

    public static ExecutorService newWorkStealingPool(int n) {
        return new ModelExecutor(n, null);
    }

    public static ScheduledExecutorService newScheduledThreadPool(int n) {
        return new ModelScheduledThreadPoolExecutor(n);
    }

    public static ScheduledExecutorService newScheduledThreadPool(int n, ThreadFactory f) {
        return new ModelScheduledThreadPoolExecutor(n, f);
    }

    /** The JDK wraps it to hide the pool's configuration; the model executor itself is returned. */
    public static ScheduledExecutorService newSingleThreadScheduledExecutor() {
        return new ModelScheduledThreadPoolExecutor(1);
    }

    public static ScheduledExecutorService newSingleThreadScheduledExecutor(ThreadFactory f) {
        return new ModelScheduledThreadPoolExecutor(1, f);
    }

    public static CompletableFuture<Void> runAsync(Runnable r) {
        return runAsync(r, commonPool());
    }

    public static CompletableFuture<Void> runAsync(Runnable r, Executor e) {
        ModelCompletableFuture<Void> f = new ModelCompletableFuture<>();
        e.execute(() -> {
            try {
                r.run();
                f.complete(null);
            } catch (Throwable t) {
                f.completeExceptionally(wrapped(t));
            }
        });
        return f;
    }

    /** What the JDK's async tasks complete with when their action throws {@code t}: a {@code CompletionException} around it. */
    private static Throwable wrapped(Throwable t) {
        return t instanceof java.util.concurrent.CompletionException ? t : new java.util.concurrent.CompletionException(t);
    }

    public static <U> CompletableFuture<U> supplyAsync(Supplier<U> s) {
        return supplyAsync(s, commonPool());
    }

    public static <U> CompletableFuture<U> supplyAsync(Supplier<U> s, Executor e) {
        ModelCompletableFuture<U> f = new ModelCompletableFuture<>();
        e.execute(() -> {
            try {
                f.complete(s.get());
            } catch (Throwable t) {
                f.completeExceptionally(wrapped(t));
            }
        });
        return f;
    }

    public static <U> CompletableFuture<U> completedFuture(U value) {
        ModelCompletableFuture<U> f = new ModelCompletableFuture<>();
        f.complete(value);
        return f;
    }

    public static <U> CompletableFuture<U> failedFuture(Throwable ex) {
        if (ex == null) {
            throw new NullPointerException();
        }
        ModelCompletableFuture<U> f = new ModelCompletableFuture<>();
        f.completeExceptionally(ex);
        return f;
    }

    /** A completed model future (the JDK's is a minimal stage: its extra methods throw; these do not). */
    public static <U> CompletionStage<U> completedStage(U value) {
        return completedFuture(value);
    }

    public static <U> CompletionStage<U> failedStage(Throwable ex) {
        return failedFuture(ex);
    }

    /** {@code CompletableFuture.delayedExecutor(delay, unit)}: the delay in logical time, then the common pool's model. */
    public static Executor delayedExecutor(long delay, TimeUnit unit) {
        return delayedExecutor(delay, unit, commonPool());
    }

    public static Executor delayedExecutor(long delay, TimeUnit unit, Executor executor) {
        if (unit == null || executor == null) {
            throw new NullPointerException();
        }
        return r -> {
            if (r == null) {
                throw new NullPointerException();
            }
            if (Rt.me() == null) {
                CompletableFuture.delayedExecutor(delay, unit, executor).execute(r); // the JDK's, uncontrolled
                return;
            }
            delayer().schedule(() -> executor.execute(r), delay, unit);
        };
    }

    public static CompletableFuture<Void> allOf(CompletableFuture<?>... cfs) {
        ModelCompletableFuture<Void> f = new ModelCompletableFuture<>();
        CompletableFuture.allOf(cfs).whenComplete((v, t) -> {
            if (t != null) {
                f.completeExceptionally(t);
            } else {
                f.complete(null);
            }
        });
        return f;
    }

    public static CompletableFuture<Object> anyOf(CompletableFuture<?>... cfs) {
        ModelCompletableFuture<Object> f = new ModelCompletableFuture<>();
        CompletableFuture.anyOf(cfs).whenComplete((v, t) -> {
            if (t != null) {
                f.completeExceptionally(t);
            } else {
                f.complete(v);
            }
        });
        return f;
    }
}
