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

    private boolean waitSpace(TS s, boolean timed, long nanos) throws InterruptedException {
        return Models.until(s, () -> remainingCapacity() > 0, this, "waiting for space in", timed, nanos, true);
    }

    private boolean waitElement(TS s, boolean timed, long nanos) throws InterruptedException {
        return Models.until(s, () -> !isEmpty(), this, "waiting for an element of", timed, nanos, true);
    }

    @Override
    public void put(E e) throws InterruptedException {
        TS s = Rt.me();
        if (s == null) {
            super.put(e);
            return;
        }
        if (e == null) {
            throw new NullPointerException();
        }
        while (!super.offer(e)) {
            waitSpace(s, false, 0);
        }
        Rt.changed();
    }

    @Override
    public boolean offer(E e, long timeout, TimeUnit unit) throws InterruptedException {
        TS s = Rt.me();
        if (s == null) {
            return super.offer(e, timeout, unit);
        }
        if (e == null) {
            throw new NullPointerException();
        }
        if (super.offer(e)) {
            Rt.changed();
            return true;
        }
        if (!waitSpace(s, true, unit.toNanos(timeout))) {
            return false;
        }
        boolean ok = super.offer(e);
        Rt.changed();
        return ok;
    }

    @Override
    public E take() throws InterruptedException {
        TS s = Rt.me();
        if (s == null) {
            return super.take();
        }
        E e;
        while ((e = super.poll()) == null) {
            waitElement(s, false, 0);
        }
        Rt.changed();
        return e;
    }

    @Override
    public E poll(long timeout, TimeUnit unit) throws InterruptedException {
        TS s = Rt.me();
        if (s == null) {
            return super.poll(timeout, unit);
        }
        E e = super.poll();
        if (e == null && waitElement(s, true, unit.toNanos(timeout))) {
            e = super.poll();
        }
        Rt.changed();
        return e;
    }
}
