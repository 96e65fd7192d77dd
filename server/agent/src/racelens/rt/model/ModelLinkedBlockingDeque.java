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
        while (!super.offerLast(e)) {
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
        if (super.offerLast(e)) {
            Rt.changed();
            return true;
        }
        if (!waitSpace(s, true, unit.toNanos(timeout))) {
            return false;
        }
        boolean ok = super.offerLast(e);
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
        while ((e = super.pollFirst()) == null) {
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
        E e = super.pollFirst();
        if (e == null && waitElement(s, true, unit.toNanos(timeout))) {
            e = super.pollFirst();
        }
        Rt.changed();
        return e;
    }

    @Override
    public void putFirst(E e) throws InterruptedException {
        TS s = Rt.me();
        if (s == null) {
            super.putFirst(e);
            return;
        }
        if (e == null) {
            throw new NullPointerException();
        }
        while (!super.offerFirst(e)) {
            waitSpace(s, false, 0);
        }
        Rt.changed();
    }

    @Override
    public boolean offerFirst(E e, long timeout, TimeUnit unit) throws InterruptedException {
        TS s = Rt.me();
        if (s == null) {
            return super.offerFirst(e, timeout, unit);
        }
        if (e == null) {
            throw new NullPointerException();
        }
        if (super.offerFirst(e)) {
            Rt.changed();
            return true;
        }
        if (!waitSpace(s, true, unit.toNanos(timeout))) {
            return false;
        }
        boolean ok = super.offerFirst(e);
        Rt.changed();
        return ok;
    }

    @Override
    public E takeFirst() throws InterruptedException {
        TS s = Rt.me();
        if (s == null) {
            return super.takeFirst();
        }
        E e;
        while ((e = super.pollFirst()) == null) {
            waitElement(s, false, 0);
        }
        Rt.changed();
        return e;
    }

    @Override
    public E pollFirst(long timeout, TimeUnit unit) throws InterruptedException {
        TS s = Rt.me();
        if (s == null) {
            return super.pollFirst(timeout, unit);
        }
        E e = super.pollFirst();
        if (e == null && waitElement(s, true, unit.toNanos(timeout))) {
            e = super.pollFirst();
        }
        Rt.changed();
        return e;
    }

    @Override
    public void putLast(E e) throws InterruptedException {
        TS s = Rt.me();
        if (s == null) {
            super.putLast(e);
            return;
        }
        if (e == null) {
            throw new NullPointerException();
        }
        while (!super.offerLast(e)) {
            waitSpace(s, false, 0);
        }
        Rt.changed();
    }

    @Override
    public boolean offerLast(E e, long timeout, TimeUnit unit) throws InterruptedException {
        TS s = Rt.me();
        if (s == null) {
            return super.offerLast(e, timeout, unit);
        }
        if (e == null) {
            throw new NullPointerException();
        }
        if (super.offerLast(e)) {
            Rt.changed();
            return true;
        }
        if (!waitSpace(s, true, unit.toNanos(timeout))) {
            return false;
        }
        boolean ok = super.offerLast(e);
        Rt.changed();
        return ok;
    }

    @Override
    public E takeLast() throws InterruptedException {
        TS s = Rt.me();
        if (s == null) {
            return super.takeLast();
        }
        E e;
        while ((e = super.pollLast()) == null) {
            waitElement(s, false, 0);
        }
        Rt.changed();
        return e;
    }

    @Override
    public E pollLast(long timeout, TimeUnit unit) throws InterruptedException {
        TS s = Rt.me();
        if (s == null) {
            return super.pollLast(timeout, unit);
        }
        E e = super.pollLast();
        if (e == null && waitElement(s, true, unit.toNanos(timeout))) {
            e = super.pollLast();
        }
        Rt.changed();
        return e;
    }
}
