package racelens.rt.model;

import java.util.Collection;
import java.util.concurrent.TimeUnit;
import racelens.rt.Rt;
import racelens.rt.TS;

/**
 * Replaces {@code new ArrayBlockingQueue(...)}: the elements are the real ones (non-blocking operations
 * run as one atomic step); the blocking operations wait in the model.
 */
public class ModelArrayBlockingQueue<E> extends java.util.concurrent.ArrayBlockingQueue<E> {
    private static final long serialVersionUID = 1L;

    public ModelArrayBlockingQueue(int capacity) {
        super(capacity);
    }

    public ModelArrayBlockingQueue(int capacity, boolean fair) {
        super(capacity, fair);
    }

    public ModelArrayBlockingQueue(int capacity, boolean fair, Collection<? extends E> c) {
        super(capacity, fair, c);
    }

    @Override
    public void put(E e) throws InterruptedException {
        TS s = Rt.me();
        if (s == null) {
            super.put(e);
        } else {
            ModelQueues.put(s, this, e, super::offer);
        }
    }

    @Override
    public boolean offer(E e, long timeout, TimeUnit unit) throws InterruptedException {
        TS s = Rt.me();
        return s == null ? super.offer(e, timeout, unit) : ModelQueues.offer(s, this, e, super::offer, unit.toNanos(timeout));
    }

    @Override
    public E take() throws InterruptedException {
        TS s = Rt.me();
        return s == null ? super.take() : ModelQueues.take(s, this, super::poll);
    }

    @Override
    public E poll(long timeout, TimeUnit unit) throws InterruptedException {
        TS s = Rt.me();
        return s == null ? super.poll(timeout, unit) : ModelQueues.poll(s, this, super::poll, unit.toNanos(timeout));
    }
}
