package racelens.rt.model;

import java.util.Collection;
import java.util.concurrent.TimeUnit;
import racelens.rt.Rt;
import racelens.rt.TS;

/**
 * Replaces {@code new LinkedBlockingDeque(...)}: the elements are the real ones (non-blocking operations
 * run as one atomic step); the blocking operations wait in the model.
 */
public class ModelLinkedBlockingDeque<E> extends java.util.concurrent.LinkedBlockingDeque<E> {
    private static final long serialVersionUID = 1L;

    public ModelLinkedBlockingDeque() {
        super();
    }

    public ModelLinkedBlockingDeque(int capacity) {
        super(capacity);
    }

    public ModelLinkedBlockingDeque(Collection<? extends E> c) {
        super(c);
    }

    // The queue methods act on the tail (insert) and the head (remove), as in the JDK.

    @Override
    public void put(E e) throws InterruptedException {
        TS s = Rt.me();
        if (s == null) {
            super.put(e);
        } else {
            ModelQueues.put(s, this, e, super::offerLast);
        }
    }

    @Override
    public boolean offer(E e, long timeout, TimeUnit unit) throws InterruptedException {
        TS s = Rt.me();
        return s == null ? super.offer(e, timeout, unit) : ModelQueues.offer(s, this, e, super::offerLast, unit.toNanos(timeout));
    }

    @Override
    public E take() throws InterruptedException {
        TS s = Rt.me();
        return s == null ? super.take() : ModelQueues.take(s, this, super::pollFirst);
    }

    @Override
    public E poll(long timeout, TimeUnit unit) throws InterruptedException {
        TS s = Rt.me();
        return s == null ? super.poll(timeout, unit) : ModelQueues.poll(s, this, super::pollFirst, unit.toNanos(timeout));
    }

    @Override
    public void putFirst(E e) throws InterruptedException {
        TS s = Rt.me();
        if (s == null) {
            super.putFirst(e);
        } else {
            ModelQueues.put(s, this, e, super::offerFirst);
        }
    }

    @Override
    public boolean offerFirst(E e, long timeout, TimeUnit unit) throws InterruptedException {
        TS s = Rt.me();
        return s == null ? super.offerFirst(e, timeout, unit) : ModelQueues.offer(s, this, e, super::offerFirst, unit.toNanos(timeout));
    }

    @Override
    public E takeFirst() throws InterruptedException {
        TS s = Rt.me();
        return s == null ? super.takeFirst() : ModelQueues.take(s, this, super::pollFirst);
    }

    @Override
    public E pollFirst(long timeout, TimeUnit unit) throws InterruptedException {
        TS s = Rt.me();
        return s == null ? super.pollFirst(timeout, unit) : ModelQueues.poll(s, this, super::pollFirst, unit.toNanos(timeout));
    }

    @Override
    public void putLast(E e) throws InterruptedException {
        TS s = Rt.me();
        if (s == null) {
            super.putLast(e);
        } else {
            ModelQueues.put(s, this, e, super::offerLast);
        }
    }

    @Override
    public boolean offerLast(E e, long timeout, TimeUnit unit) throws InterruptedException {
        TS s = Rt.me();
        return s == null ? super.offerLast(e, timeout, unit) : ModelQueues.offer(s, this, e, super::offerLast, unit.toNanos(timeout));
    }

    @Override
    public E takeLast() throws InterruptedException {
        TS s = Rt.me();
        return s == null ? super.takeLast() : ModelQueues.take(s, this, super::pollLast);
    }

    @Override
    public E pollLast(long timeout, TimeUnit unit) throws InterruptedException {
        TS s = Rt.me();
        return s == null ? super.pollLast(timeout, unit) : ModelQueues.poll(s, this, super::pollLast, unit.toNanos(timeout));
    }
}
