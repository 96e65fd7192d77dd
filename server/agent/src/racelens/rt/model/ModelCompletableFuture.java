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
 * Replaces {@code new CompletableFuture()}: waiting ({@code get}, {@code join}) happens in the
 * model, dependent futures are model futures too, async stages run on the controlled executor,
 * timeouts ({@code orTimeout}, {@code completeOnTimeout}) fire on the model delay scheduler in
 * logical time.
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
