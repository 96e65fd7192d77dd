package racelens.rt.model;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import racelens.rt.Rt;
import racelens.rt.TS;

/**
 * Replaces {@code new Exchanger()}: the exchange point held in the model. A thread that finds
 * another waiting there swaps items with it and returns at once; otherwise it waits (at most the
 * timeout, in logical time, for the timed {@code exchange}: then {@code TimeoutException}) until
 * the next thread arrives. Items may be null. Interrupts as in the JDK: a thread interrupted on
 * arrival throws {@code InterruptedException} without exchanging; a waiting thread interrupted
 * before its partner came throws it; once the exchange happened, a later interrupt stays pending
 * and the exchange succeeds. Complete for controlled threads; uncontrolled callers use the real
 * exchanger, which does not see the model's waiter (nor it theirs).
 *
 * <p>Pairs form in arrival order: a thread that arrives while another waits always exchanges
 * with it. (Under contention the JDK's arena may keep two present threads apart for a while and
 * pair one of them with a later arrival; those pairings are not explored.)
 *
 * <p>State: the waiting thread's slot of this execution (reset lazily by epoch). Effects: every
 * call from application code writes the exchanger (a data-like object); so does the step that
 * completes a wait ({@link Models#until}).
 */
public class ModelExchanger<V> extends java.util.concurrent.Exchanger<V> {
    /** The waiting thread's item, and the one it gets once a partner came. */
    private static final class Slot {
        final Object item;
        Object got;
        boolean matched;

        Slot(Object item) {
            this.item = item;
        }
    }

    private Slot waiting;
    private int epoch = Rt.epoch;

    public ModelExchanger() {
        super();
    }

    @SuppressWarnings("unchecked")
    private V swap(TS s, V x, boolean timed, long nanos) throws InterruptedException, TimeoutException {
        if (epoch != Rt.epoch) {
            epoch = Rt.epoch;
            waiting = null;
        }
        Models.checkInterrupt(s); // the JDK gives up before looking for a partner
        Slot partner = waiting;
        if (partner != null) {
            waiting = null;
            partner.got = x;
            partner.matched = true;
            Rt.changed();
            return (V) partner.item;
        }
        if (timed && nanos <= 0) {
            throw new TimeoutException();
        }
        Slot me = new Slot(x);
        waiting = me;
        boolean done;
        try {
            done = Models.untilCompleted(s, () -> me.matched, this, "waiting for a partner at", timed, nanos);
        } catch (InterruptedException e) {
            waiting = null; // not matched: nobody came, so the slot is still this thread's
            throw e;
        }
        if (!done) {
            waiting = null;
            throw new TimeoutException();
        }
        return (V) me.got;
    }

    @Override
    public V exchange(V x) throws InterruptedException {
        TS s = Rt.me();
        if (s == null) {
            return super.exchange(x);
        }
        try {
            return swap(s, x, false, 0);
        } catch (TimeoutException e) {
            throw new AssertionError(e); // untimed: never thrown
        }
    }

    @Override
    public V exchange(V x, long timeout, TimeUnit unit) throws InterruptedException, TimeoutException {
        TS s = Rt.me();
        return s == null ? super.exchange(x, timeout, unit) : swap(s, x, true, unit.toNanos(timeout));
    }
}
