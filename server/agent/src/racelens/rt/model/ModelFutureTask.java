package racelens.rt.model;

import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import racelens.rt.Rt;
import racelens.rt.TS;

/** Replaces {@code new FutureTask(...)} (and the futures of the controlled executor): {@code get} waits in the model. */
public class ModelFutureTask<V> extends java.util.concurrent.FutureTask<V> {
    public ModelFutureTask(Callable<V> callable) {
        super(callable);
    }

    public ModelFutureTask(Runnable runnable, V result) {
        super(runnable, result);
    }

    @Override
    protected void done() {
        Rt.touch(this); // run by the worker, outside a call from application code
        Rt.changed();
    }

    @Override
    public V get() throws InterruptedException, ExecutionException {
        TS s = Rt.me();
        if (s != null) {
            Models.until(s, this::isDone, this, "waiting for the result of", false, 0, true);
        }
        return super.get();
    }

    @Override
    public V get(long timeout, TimeUnit unit) throws InterruptedException, ExecutionException, TimeoutException {
        TS s = Rt.me();
        if (s == null) {
            return super.get(timeout, unit);
        }
        if (!Models.until(s, this::isDone, this, "waiting for the result of", true, unit.toNanos(timeout), true)) {
            throw new TimeoutException();
        }
        return super.get();
    }
}
