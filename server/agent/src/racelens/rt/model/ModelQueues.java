package racelens.rt.model;

import java.util.concurrent.BlockingQueue;
import java.util.function.Predicate;
import java.util.function.Supplier;
import racelens.rt.Rt;
import racelens.rt.TS;

/**
 * The blocking operations of the model queues and deques, written once over each one's own
 * non-blocking insert ({@code offer}, {@code offerFirst}, ...) and removal ({@code poll}, ...):
 * those run on the real collection as one atomic step; waiting for space or for an element
 * happens in the model, so that the scheduler decides who proceeds.
 */
final class ModelQueues {
    private ModelQueues() {}

    /** {@code put}: inserts, waiting while {@code queue} is full. */
    static <E> void put(TS s, BlockingQueue<?> queue, E e, Predicate<E> insert) throws InterruptedException {
        if (e == null) {
            throw new NullPointerException();
        }
        while (!insert.test(e)) {
            waitForSpace(s, queue, false, 0);
        }
        Rt.changed();
    }

    /** Timed {@code offer}: inserts, waiting at most {@code nanos} of logical time for space. */
    static <E> boolean offer(TS s, BlockingQueue<?> queue, E e, Predicate<E> insert, long nanos) throws InterruptedException {
        if (e == null) {
            throw new NullPointerException();
        }
        boolean ok = insert.test(e) || waitForSpace(s, queue, true, nanos) && insert.test(e);
        Rt.changed();
        return ok;
    }

    /** {@code take}: removes, waiting while {@code queue} is empty. */
    static <E> E take(TS s, BlockingQueue<?> queue, Supplier<E> remove) throws InterruptedException {
        E e;
        while ((e = remove.get()) == null) {
            waitForElement(s, queue, false, 0);
        }
        Rt.changed();
        return e;
    }

    /** Timed {@code poll}: removes, waiting at most {@code nanos} of logical time for an element. */
    static <E> E poll(TS s, BlockingQueue<?> queue, Supplier<E> remove, long nanos) throws InterruptedException {
        E e = remove.get();
        if (e == null && waitForElement(s, queue, true, nanos)) {
            e = remove.get();
        }
        Rt.changed();
        return e;
    }

    private static boolean waitForSpace(TS s, BlockingQueue<?> queue, boolean timed, long nanos) throws InterruptedException {
        return Models.until(s, () -> queue.remainingCapacity() > 0, queue, "waiting for space in", timed, nanos, true);
    }

    private static boolean waitForElement(TS s, BlockingQueue<?> queue, boolean timed, long nanos) throws InterruptedException {
        return Models.until(s, () -> !queue.isEmpty(), queue, "waiting for an element of", timed, nanos, true);
    }
}
