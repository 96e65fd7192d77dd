package racelens.rt.model;

import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import racelens.rt.Rt;
import racelens.rt.TS;

/**
 * Replaces {@code new SynchronousQueue(...)}: hand-offs between a producer and a consumer held
 * in the model. A producer ({@code put}, {@code offer}) finds the consumer waiting longest and
 * gives it the element, or waits until a consumer takes it; a consumer ({@code take},
 * {@code poll}) takes the element of the producer waiting longest, or waits for one. The
 * non-blocking {@code offer(e)}/{@code poll()} succeed only with a partner already waiting;
 * the timed ones wait at most their timeout (logical time). Interrupts as in the JDK: a caller
 * interrupted before it waits throws {@code InterruptedException} unless a partner was already
 * waiting; once its hand-off happened, a later interrupt stays pending and the call succeeds.
 * The queue itself is always empty ({@code size()}, {@code peek()}, iteration: the JDK's).
 *
 * <p>Fair or not makes no difference here: partners are matched in the order they came (the
 * fair queue's order). The unfair queue's last-come-first order is not explored. Complete for
 * controlled threads; uncontrolled callers use the real queue, which does not see the model's
 * waiters (nor they its).
 *
 * <p>State: the waiting producers and consumers of this execution (reset lazily by epoch).
 * Effects: every call from application code writes the queue (a data-like object); so does
 * the step that completes a wait ({@link Models#until}).
 */
public class ModelSynchronousQueue<E> extends java.util.concurrent.SynchronousQueue<E> {
    private static final long serialVersionUID = 1L;

    /** A waiting producer (its element) or consumer (the element it gets once matched). */
    private static final class Waiter {
        Object item;
        boolean matched;

        Waiter(Object item) {
            this.item = item;
        }
    }

    private final transient ArrayDeque<Waiter> producers = new ArrayDeque<>();
    private final transient ArrayDeque<Waiter> consumers = new ArrayDeque<>();
    private transient int epoch = Rt.epoch;

    public ModelSynchronousQueue() {
        super();
    }

    public ModelSynchronousQueue(boolean fair) {
        super(fair);
    }

    private void fresh() {
        if (epoch != Rt.epoch) {
            epoch = Rt.epoch;
            producers.clear();
            consumers.clear();
        }
    }

    /** Hands {@code e} to a waiting consumer, else waits (if {@code wait}) for one to take it; true when taken. */
    private boolean give(TS s, E e, boolean wait, boolean timed, long nanos) throws InterruptedException {
        if (e == null) {
            throw new NullPointerException();
        }
        fresh();
        Waiter consumer = consumers.pollFirst();
        if (consumer != null) {
            consumer.item = e;
            consumer.matched = true;
            Rt.changed();
            return true;
        }
        if (!wait) {
            return false;
        }
        return await(s, producers, new Waiter(e), "waiting for a consumer of", timed, nanos);
    }

    /** Takes the element of a waiting producer, else waits (if {@code wait}) for one; null when none came. */
    @SuppressWarnings("unchecked")
    private E receive(TS s, boolean wait, boolean timed, long nanos) throws InterruptedException {
        fresh();
        Waiter producer = producers.pollFirst();
        if (producer != null) {
            producer.matched = true;
            Rt.changed();
            return (E) producer.item;
        }
        if (!wait) {
            return null;
        }
        Waiter me = new Waiter(null);
        return await(s, consumers, me, "waiting for a producer of", timed, nanos) ? (E) me.item : null;
    }

    /**
     * Waits as {@code me} at the end of {@code line} until a partner matches it: true once
     * matched, false when the timeout ran out (or was zero); it leaves the line unless matched.
     */
    private boolean await(TS s, ArrayDeque<Waiter> line, Waiter me, String verb, boolean timed, long nanos)
            throws InterruptedException {
        Models.checkInterrupt(s);
        if (timed && nanos <= 0) {
            return false;
        }
        line.addLast(me);
        boolean matched;
        try {
            matched = Models.untilCompleted(s, () -> me.matched, this, verb, timed, nanos);
        } catch (InterruptedException x) {
            line.remove(me);
            throw x;
        }
        if (!matched) {
            line.remove(me);
        }
        return matched;
    }

    @Override
    public void put(E e) throws InterruptedException {
        TS s = Rt.me();
        if (s == null) {
            super.put(e);
        } else {
            give(s, e, true, false, 0);
        }
    }

    @Override
    public boolean offer(E e, long timeout, TimeUnit unit) throws InterruptedException {
        TS s = Rt.me();
        return s == null ? super.offer(e, timeout, unit) : give(s, e, true, true, unit.toNanos(timeout));
    }

    @Override
    public boolean offer(E e) {
        TS s = Rt.me();
        if (s == null) {
            return super.offer(e);
        }
        try {
            return give(s, e, false, false, 0);
        } catch (InterruptedException x) {
            throw new AssertionError(x); // does not wait: never thrown
        }
    }

    @Override
    public E take() throws InterruptedException {
        TS s = Rt.me();
        return s == null ? super.take() : receive(s, true, false, 0);
    }

    @Override
    public E poll(long timeout, TimeUnit unit) throws InterruptedException {
        TS s = Rt.me();
        return s == null ? super.poll(timeout, unit) : receive(s, true, true, unit.toNanos(timeout));
    }

    @Override
    public E poll() {
        TS s = Rt.me();
        if (s == null) {
            return super.poll();
        }
        try {
            return receive(s, false, false, 0);
        } catch (InterruptedException x) {
            throw new AssertionError(x); // does not wait: never thrown
        }
    }
}
