package racelens.rt.model;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeoutException;
import racelens.rt.Rt;
import racelens.rt.TS;

/**
 * {@code invokeAny} (and the timed {@code invokeAll}) for the model executors (thread pools,
 * scheduled executor, fork/join pool): the JDK's version collects results through an
 * {@code ExecutorCompletionService} whose queue it creates itself, a real queue a controlled
 * thread would block on, and its timed versions read the real clock. Here the caller waits in
 * the model until one task has returned or all have failed; the others are then cancelled with
 * an interrupt, as the JDK's ({@code ModelFutureTask.cancel(true)} interrupts in the model).
 *
 * <p>State: none (each call keeps its own futures and the count of tasks that returned).
 */
final class ModelInvokeAny {
    private ModelInvokeAny() {}

    /**
     * The timed {@code invokeAll} (the JDK's reads the real clock): each task made by
     * {@code newTask} and executed, then awaited until {@code nanos} of logical time have passed;
     * the tasks not done by then are cancelled (with an interrupt, as the JDK's).
     */
    static <T> List<java.util.concurrent.Future<T>> invokeAll(Executor e, Collection<? extends Callable<T>> tasks, long nanos,
            java.util.function.Function<Callable<T>, java.util.concurrent.RunnableFuture<T>> newTask) throws InterruptedException {
        TS s = Rt.me();
        long deadline = Models.deadline(nanos);
        List<java.util.concurrent.Future<T>> futures = new ArrayList<>(tasks.size());
        for (Callable<T> c : tasks) {
            if (c == null) {
                throw new NullPointerException();
            }
            futures.add(newTask.apply(c));
        }
        boolean timedOut = false;
        for (java.util.concurrent.Future<T> f : futures) {
            if (Models.left(deadline) <= 0) {
                timedOut = true;
                break;
            }
            e.execute((Runnable) f);
        }
        for (java.util.concurrent.Future<T> f : futures) {
            if (!timedOut && !f.isDone() && !Models.until(s, f::isDone, f, "waiting for", true, Models.left(deadline), true)) {
                timedOut = true;
            }
            if (timedOut && !f.isDone()) {
                f.cancel(true);
            }
        }
        return futures;
    }

    /** The untimed {@code invokeAny}. */
    static <T> T invokeAny(Executor e, Collection<? extends Callable<T>> tasks) throws InterruptedException, ExecutionException {
        try {
            return invokeAny(e, tasks, false, 0);
        } catch (TimeoutException x) {
            throw new AssertionError(x); // untimed
        }
    }

    /** The timed {@code invokeAny}: at most {@code nanos} of logical time. */
    static <T> T invokeAny(Executor e, Collection<? extends Callable<T>> tasks, long nanos)
            throws InterruptedException, ExecutionException, TimeoutException {
        return invokeAny(e, tasks, true, nanos);
    }

    private static <T> T invokeAny(Executor e, Collection<? extends Callable<T>> tasks, boolean timed, long nanos)
            throws InterruptedException, ExecutionException, TimeoutException {
        TS s = Rt.me();
        if (tasks.isEmpty()) {
            throw new IllegalArgumentException();
        }
        int[] returned = {0}; // written by the workers, read by the waiting predicate
        List<ModelFutureTask<T>> fs = new ArrayList<>();
        try {
            for (Callable<T> c : tasks) {
                if (c == null) {
                    throw new NullPointerException();
                }
                ModelFutureTask<T> f = new ModelFutureTask<>(() -> {
                    T v = c.call();
                    returned[0]++;
                    return v;
                });
                fs.add(f);
                e.execute(f);
            }
            boolean settled = Models.until(s, () -> returned[0] > 0 || fs.stream().allMatch(ModelFutureTask::isDone), e,
                    "waiting for any task of", timed, nanos, true);
            if (!settled) {
                throw new TimeoutException();
            }
            for (ModelFutureTask<T> f : fs) {
                Rt.touch(f); // which of them is done decides the result
            }
            ExecutionException last = null;
            for (ModelFutureTask<T> f : fs) {
                if (f.isDone() && !f.isCancelled()) {
                    try {
                        return f.get();
                    } catch (ExecutionException x) {
                        last = x;
                    }
                }
            }
            throw last != null ? last : new ExecutionException(new CancellationException("every task was cancelled"));
        } finally {
            for (ModelFutureTask<T> f : fs) {
                f.cancel(true); // as the JDK's: the model's interrupt reaches a task still running
            }
        }
    }
}
