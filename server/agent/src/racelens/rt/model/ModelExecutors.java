package racelens.rt.model;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.function.Supplier;
import racelens.rt.Rt;

/** Replacements of {@code Executors.*} and of the executor-less {@code CompletableFuture} factories. */
public final class ModelExecutors {
    private ModelExecutors() {}

    private static ModelExecutor common;

    /** The stand-in for the common pool: a controlled executor, fresh in every execution. */
    static synchronized ModelExecutor commonPool() {
        if (common == null || common.epoch != Rt.epoch) {
            common = new ModelExecutor(Math.max(2, Math.min(4, Runtime.getRuntime().availableProcessors())), null);
        }
        return common;
    }

    public static ExecutorService newFixedThreadPool(int n) {
        return new ModelExecutor(n, null);
    }

    public static ExecutorService newFixedThreadPool(int n, ThreadFactory f) {
        return new ModelExecutor(n, f);
    }

    public static ExecutorService newCachedThreadPool() {
        return new ModelExecutor(Integer.MAX_VALUE, null);
    }

    public static ExecutorService newCachedThreadPool(ThreadFactory f) {
        return new ModelExecutor(Integer.MAX_VALUE, f);
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
        throw new UnsupportedOperationException("racelens: scheduled executors are not modelled");
    }

    public static ScheduledExecutorService newScheduledThreadPool(int n, ThreadFactory f) {
        return newScheduledThreadPool(n);
    }

    public static ScheduledExecutorService newSingleThreadScheduledExecutor() {
        return newScheduledThreadPool(1);
    }

    public static ScheduledExecutorService newSingleThreadScheduledExecutor(ThreadFactory f) {
        return newScheduledThreadPool(1);
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
                f.completeExceptionally(t);
            }
        });
        return f;
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
                f.completeExceptionally(t);
            }
        });
        return f;
    }

    public static <U> CompletableFuture<U> completedFuture(U value) {
        ModelCompletableFuture<U> f = new ModelCompletableFuture<>();
        f.complete(value);
        return f;
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
