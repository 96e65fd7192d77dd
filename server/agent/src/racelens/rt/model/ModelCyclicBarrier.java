package racelens.rt.model;

import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import racelens.rt.Rt;
import racelens.rt.TS;

/**
 * Replaces {@code new CyclicBarrier(...)} with a model barrier (generations, breaking, barrier
 * action). Uncontrolled callers use the real barrier, all of them: {@code await},
 * {@code getNumberWaiting}, {@code isBroken} and {@code reset} (the model's waiters and the real
 * barrier's do not see each other).
 */
public class ModelCyclicBarrier extends java.util.concurrent.CyclicBarrier {
    private static final class Generation {
        boolean broken;
    }

    private final int parties;
    private final Runnable action;
    private Generation generation = new Generation();
    private int count;
    private int epoch = Rt.epoch;

    public ModelCyclicBarrier(int parties) {
        this(parties, null);
    }

    public ModelCyclicBarrier(int parties, Runnable action) {
        super(parties, action);
        this.parties = parties;
        this.action = action;
        this.count = parties;
    }

    private void fresh() {
        if (epoch != Rt.epoch) {
            epoch = Rt.epoch;
            generation = new Generation();
            count = parties;
        }
    }

    private void breakBarrier() {
        generation.broken = true;
        count = parties;
        Rt.changed();
    }

    private int doAwait(boolean timed, long nanos) throws InterruptedException, BrokenBarrierException, TimeoutException {
        TS s = Rt.me();
        if (s == null) {
            return timed ? super.await(nanos, TimeUnit.NANOSECONDS) : super.await();
        }
        fresh();
        Generation g = generation;
        if (g.broken) {
            throw new BrokenBarrierException();
        }
        if (s.interrupted) {
            breakBarrier();
            s.interrupted = false;
            throw new InterruptedException();
        }
        int index = --count;
        if (index == 0) {
            boolean ran = false;
            try {
                if (action != null) {
                    action.run();
                }
                ran = true;
                generation = new Generation();
                count = parties;
                Rt.changed();
                return 0;
            } finally {
                if (!ran) {
                    breakBarrier();
                }
            }
        }
        boolean done;
        try {
            done = Models.until(s, () -> g != generation || g.broken, this, "waiting at barrier", timed, nanos, true);
        } catch (InterruptedException e) {
            if (g == generation && !g.broken) {
                breakBarrier();
            }
            throw e;
        }
        if (g.broken) {
            throw new BrokenBarrierException();
        }
        if (!done && g == generation) {
            breakBarrier();
            throw new TimeoutException();
        }
        return index;
    }

    @Override
    public int await() throws InterruptedException, BrokenBarrierException {
        try {
            return doAwait(false, 0);
        } catch (TimeoutException e) {
            throw new Error(e);
        }
    }

    @Override
    public int await(long timeout, TimeUnit unit) throws InterruptedException, BrokenBarrierException, TimeoutException {
        return doAwait(true, unit.toNanos(timeout));
    }

    @Override
    public boolean isBroken() {
        if (Rt.me() == null) {
            return super.isBroken();
        }
        fresh();
        return generation.broken;
    }

    @Override
    public void reset() {
        if (Rt.me() == null) {
            super.reset();
            return;
        }
        fresh();
        breakBarrier();
        generation = new Generation();
    }

    @Override
    public int getNumberWaiting() {
        if (Rt.me() == null) {
            return super.getNumberWaiting();
        }
        fresh();
        return parties - count;
    }
}
