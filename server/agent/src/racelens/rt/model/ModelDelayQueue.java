package racelens.rt.model;

import static java.util.concurrent.TimeUnit.NANOSECONDS;

import java.util.Collection;
import java.util.concurrent.Delayed;
import java.util.concurrent.TimeUnit;
import racelens.rt.Rt;
import racelens.rt.TS;

/**
 * Replaces {@code new DelayQueue(...)}: the elements are the real queue's, and an element is
 * available once its {@code getDelay} (application code, computed from
 * {@code System.nanoTime()}, which racelens replaces by the logical clock) is zero or less.
 * {@code take} and the timed {@code poll} wait in the model: while the queue is empty, until an
 * element arrives; while its head has not expired, in a timed wait of exactly the head's delay,
 * which the head's change (an earlier element inserted, the head taken) ends early. Timed waits
 * end only when no other thread can run, and then the clock jumps to the earliest deadline
 * ({@code Sched#pickNext}): the head's delay has expired when the waiter runs again, whatever
 * the other threads did meanwhile. Complete for controlled threads; uncontrolled callers use the
 * real queue.
 *
 * <p>Where the JDK lets one waiter (the leader) wait for the head's delay and the others wait
 * untimed, here every waiter waits for the head's delay; which of them gets the element is the
 * scheduler's choice among those enabled, as it is the JDK's among the threads it wakes.
 *
 * <p>Effects: every call from application code writes the queue (a data-like object); the step
 * that completes a wait writes it too, and one that a timeout ended depends on every other step
 * ({@link Models#until}, {@code Sched#block}). Reading the delay reads the clock (a global
 * effect of the application's {@code System.nanoTime()}).
 */
public class ModelDelayQueue<E extends Delayed> extends java.util.concurrent.DelayQueue<E> {
    public ModelDelayQueue() {
        super();
    }

    public ModelDelayQueue(Collection<? extends E> c) {
        super(c);
    }

    @Override
    public E take() throws InterruptedException {
        TS s = Rt.me();
        return s == null ? super.take() : next(s, false, 0);
    }

    @Override
    public E poll(long timeout, TimeUnit unit) throws InterruptedException {
        TS s = Rt.me();
        return s == null ? super.poll(timeout, unit) : next(s, true, unit.toNanos(timeout));
    }

    /**
     * {@code take} (untimed) and the timed {@code poll}: the first expired element, waiting in the
     * model for an element and then for the head's delay; null when {@code nanos} ran out.
     */
    private E next(TS s, boolean timed, long nanos) throws InterruptedException {
        long deadline = timed ? Models.deadline(nanos) : Long.MAX_VALUE;
        Models.checkInterrupt(s); // the JDK takes its lock interruptibly first
        for (;;) {
            E e = super.poll(); // the expired head, or null
            if (e != null) {
                return e;
            }
            long left = timed ? Models.left(deadline) : Long.MAX_VALUE; // untimed: only the head's delay limits a wait
            if (left <= 0) {
                return null;
            }
            E first = super.peek();
            if (first == null) {
                Models.until(s, () -> super.peek() != null, this, "waiting for an element of", timed, left, true);
            } else {
                long delay = first.getDelay(NANOSECONDS);
                Models.until(s, () -> super.peek() != first, this, "waiting for the delay of the head of", true, Math.min(delay, left), true);
            }
        }
    }
}
