package racelens.rt.model;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import racelens.rt.Rt;
import racelens.rt.TS;

/**
 * Replaces {@code new CompletableFuture()}, and is the superclass of the application's
 * subclasses: waiting ({@code get}, {@code join}) happens in the model, dependent futures are
 * model futures too (unless a subclass's {@code newIncompleteFuture} makes its own), async stages
 * run on the controlled executor ({@code defaultExecutor}, which a subclass may override),
 * timeouts ({@code orTimeout}, {@code completeOnTimeout}) fire on the model delay scheduler in
 * logical time. The result and the dependents are the JDK's, so {@code getNow},
 * {@code getNumberOfDependents}, {@code isCompletedExceptionally} and {@code toString} are the
 * JDK's answers; what completes a future outside {@code complete} ({@code cancel},
 * {@code obtrudeValue}, {@code obtrudeException}, {@code completeAsync}) tells the model too.
 */
public class ModelCompletableFuture<T> extends CompletableFuture<T> {
    public ModelCompletableFuture() {
        super();
    }

    private void awaitDone() {
        TS s = Rt.me();
        if (s != null) {
            Models.untilUninterruptibly(s, this::isDone, this, "waiting for");
        }
    }

    @Override
    public T get() throws InterruptedException, ExecutionException {
        TS s = Rt.me();
        if (s != null) {
            Models.until(s, this::isDone, this, "waiting for", false, 0, true);
        }
        return super.get();
    }

    @Override
    public T get(long timeout, TimeUnit unit) throws InterruptedException, ExecutionException, TimeoutException {
        TS s = Rt.me();
        if (s == null) {
            return super.get(timeout, unit);
        }
        if (!Models.until(s, this::isDone, this, "waiting for", true, unit.toNanos(timeout), true)) {
            throw new TimeoutException();
        }
        return super.get();
    }

    @Override
    public T join() {
        awaitDone();
        return super.join();
    }

    @Override
    public boolean complete(T value) {
        boolean r = super.complete(value);
        Rt.touch(this); // often called by model code (async tasks), not by the application
        Rt.changed();
        return r;
    }

    @Override
    public boolean completeExceptionally(Throwable ex) {
        boolean r = super.completeExceptionally(ex);
        Rt.touch(this);
        Rt.changed();
        return r;
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
        boolean r = super.cancel(mayInterruptIfRunning);
        Rt.touch(this);
        Rt.changed();
        return r;
    }

    @Override
    public void obtrudeValue(T value) {
        super.obtrudeValue(value);
        Rt.touch(this);
        Rt.changed();
    }

    @Override
    public void obtrudeException(Throwable ex) {
        super.obtrudeException(ex);
        Rt.touch(this);
        Rt.changed();
    }

    /**
     * The JDK's {@code completeAsync}: the supplier runs on {@code executor} and completes this
     * future (through {@code complete}, so waiters see it), unless it was completed before; a
     * supplier that throws completes it with the exception wrapped as the JDK's does.
     */
    @Override
    public CompletableFuture<T> completeAsync(java.util.function.Supplier<? extends T> supplier, Executor executor) {
        if (supplier == null || executor == null) {
            throw new NullPointerException();
        }
        if (Rt.me() == null) {
            return super.completeAsync(supplier, executor);
        }
        executor.execute(() -> {
            if (!isDone()) {
                try {
                    complete(supplier.get());
                } catch (Throwable ex) {
                    completeExceptionally(ex instanceof java.util.concurrent.CompletionException ? ex : new java.util.concurrent.CompletionException(ex));
                }
            }
        });
        return this;
    }

    @Override
    public CompletableFuture<T> completeAsync(java.util.function.Supplier<? extends T> supplier) {
        return completeAsync(supplier, defaultExecutor());
    }

    @Override
    public String toString() {
        return Models.asJdk(super.toString(), this, CompletableFuture.class);
    }

    @Override
    public <U> CompletableFuture<U> newIncompleteFuture() {
        return new ModelCompletableFuture<>();
    }

    @Override
    public Executor defaultExecutor() {
        return ModelExecutors.commonPool();
    }

    /** The JDK's times out on its own delay-scheduler thread; this one on the model's, in logical time. */
    @Override
    public CompletableFuture<T> orTimeout(long timeout, TimeUnit unit) {
        if (unit == null) {
            throw new NullPointerException();
        }
        if (Rt.me() == null) {
            return super.orTimeout(timeout, unit);
        }
        if (!isDone()) {
            ScheduledFuture<?> timer = ModelExecutors.delayer().schedule(() -> {
                if (!isDone()) {
                    completeExceptionally(new TimeoutException());
                }
            }, timeout, unit);
            whenComplete((v, ex) -> cancelTimer(timer, ex));
        }
        return this;
    }

    @Override
    public CompletableFuture<T> completeOnTimeout(T value, long timeout, TimeUnit unit) {
        if (unit == null) {
            throw new NullPointerException();
        }
        if (Rt.me() == null) {
            return super.completeOnTimeout(value, timeout, unit);
        }
        if (!isDone()) {
            ScheduledFuture<?> timer = ModelExecutors.delayer().schedule(() -> complete(value), timeout, unit);
            whenComplete((v, ex) -> cancelTimer(timer, ex));
        }
        return this;
    }

    /** The JDK's {@code Canceller}: a future completed normally cancels its timeout. */
    private static void cancelTimer(ScheduledFuture<?> timer, Throwable ex) {
        if (ex == null && !timer.isDone()) {
            timer.cancel(false);
        }
    }

    /** A model future that follows this one (the JDK's minimal stage throws on its extra methods; this one does not). */
    @Override
    public CompletionStage<T> minimalCompletionStage() {
        return copy();
    }
}
