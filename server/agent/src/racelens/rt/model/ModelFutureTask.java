package racelens.rt.model;

import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import racelens.rt.Rt;
import racelens.rt.TS;

/**
 * Replaces {@code new FutureTask(...)} (and the futures of the controlled executors), and is the
 * superclass of the application's subclasses: {@code get} waits in the model. The result, the
 * state and {@code toString} stay the JDK's; what changes them ({@code run}, {@code runAndReset},
 * {@code set}, {@code setException}, {@code cancel}) tells the model, whatever the application's
 * {@code done()} does, and {@code cancel(true)} interrupts the running thread in the model (the
 * JDK's real interrupt would not reach a controlled thread's interrupt status).
 */
public class ModelFutureTask<V> extends java.util.concurrent.FutureTask<V> {
    /** The thread running {@code run} or {@code runAndReset} now, for {@code cancel(true)}. */
    private volatile Thread runningIn;

    public ModelFutureTask(Callable<V> callable) {
        super(callable);
    }

    public ModelFutureTask(Runnable runnable, V result) {
        super(runnable, result);
    }

    /** The model state changed: waiters in {@code get} may go on (a worker or model code calls this too). */
    private void changed() {
        Rt.touch(this);
        Rt.changed();
    }

    @Override
    protected void done() {
        changed();
    }

    @Override
    protected void set(V v) {
        super.set(v);
        changed();
    }

    @Override
    protected void setException(Throwable t) {
        super.setException(t);
        changed();
    }

    @Override
    public void run() {
        Thread outer = runningIn;
        runningIn = Thread.currentThread();
        try {
            super.run();
        } finally {
            runningIn = outer;
        }
    }

    @Override
    protected boolean runAndReset() {
        Thread outer = runningIn;
        runningIn = Thread.currentThread();
        try {
            return super.runAndReset();
        } finally {
            runningIn = outer;
        }
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
        if (!mayInterruptIfRunning || Rt.me() == null) {
            boolean r = super.cancel(mayInterruptIfRunning);
            changed();
            return r;
        }
        boolean r = super.cancel(false); // cancelled; the interrupt is the model's
        Thread t = runningIn;
        if (r && t != null) {
            Rt.interruptNow(t);
        }
        changed();
        return r;
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

    @Override
    public String toString() {
        return Models.asJdk(super.toString(), this, java.util.concurrent.FutureTask.class);
    }
}
