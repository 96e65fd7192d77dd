package racelens.rt.model;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import racelens.rt.Rt;
import racelens.rt.TS;

/**
 * Replaces {@code new CompletableFuture()}: waiting ({@code get}, {@code join}) happens in the
 * model, dependent futures are model futures too, async stages run on the controlled executor.
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
}
