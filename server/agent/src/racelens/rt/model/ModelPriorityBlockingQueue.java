package racelens.rt.model;

import java.util.Collection;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import racelens.rt.Rt;
import racelens.rt.TS;

/**
 * Replaces {@code new PriorityBlockingQueue(...)}: the elements and their order (natural or by
 * the comparator, which runs as application code inside the call) are the real queue's; only
 * {@code take} and the timed {@code poll} wait, in the model, while the queue is empty. The
 * queue is unbounded, so inserting never waits. Complete for controlled threads; uncontrolled
 * callers use the real queue (a controlled taker waiting in the model notices their inserts
 * only at the next change of model state).
 *
 * <p>Effects: every call from application code writes the queue (a data-like object); the step
 * that completes a wait writes it too ({@link Models#until}).
 */
public class ModelPriorityBlockingQueue<E> extends java.util.concurrent.PriorityBlockingQueue<E> {
    private static final long serialVersionUID = 1L;

    public ModelPriorityBlockingQueue() {
        super();
    }

    public ModelPriorityBlockingQueue(int initialCapacity) {
        super(initialCapacity);
    }

    public ModelPriorityBlockingQueue(int initialCapacity, Comparator<? super E> comparator) {
        super(initialCapacity, comparator);
    }

    public ModelPriorityBlockingQueue(Collection<? extends E> c) {
        super(c);
    }

    @Override
    public E take() throws InterruptedException {
        TS s = Rt.me();
        if (s == null) {
            return super.take();
        }
        Models.checkInterrupt(s); // the JDK takes its lock interruptibly first
        return ModelQueues.take(s, this, super::poll);
    }

    @Override
    public E poll(long timeout, TimeUnit unit) throws InterruptedException {
        TS s = Rt.me();
        if (s == null) {
            return super.poll(timeout, unit);
        }
        Models.checkInterrupt(s);
        return ModelQueues.poll(s, this, super::poll, unit.toNanos(timeout));
    }
}
