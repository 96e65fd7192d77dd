package racelens.rt.model;

import java.util.ArrayList;
import java.util.concurrent.Phaser;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import racelens.rt.Rt;
import racelens.rt.TS;

/**
 * Replaces {@code new Phaser(...)}: parties, arrivals, phases, tiers and termination are the
 * real phaser's (every non-waiting operation is the JDK's own, {@code onAdvance} overrides
 * included: the JDK calls it, as application code, inside the arrival that completes a phase);
 * only waiting happens in the model. {@code arriveAndAwaitAdvance} arrives and, unless its
 * arrival advanced the phase, waits until the root's phase moves on or the phaser terminates;
 * {@code awaitAdvance} waits uninterruptibly (an interrupt stays pending),
 * {@code awaitAdvanceInterruptibly} throws {@code InterruptedException} (and, timed,
 * {@code TimeoutException} after its timeout in logical time); once the phase advanced, a later
 * interrupt stays pending and the wait returns. Return values are the JDK's (the next phase,
 * the negative phase of a terminated phaser). A registration that the JDK makes wait (on a tier
 * whose parties have all arrived while the root has not advanced yet, also when a child is
 * created with parties) waits in the model for the advance, then registers. Uncontrolled
 * callers use the real phaser, whose state controlled threads share.
 *
 * <p>Effects: every call from application code writes its receiver (a data-like object). A
 * phaser's state also lives in its tree: an arrival at a child can advance the root, and a
 * child's phase is the root's. So every operation here also writes every phaser of the tree
 * ({@link Rt#touch}), and so does the step that completes a wait: a call on one tier conflicts
 * with calls on every other ({@code getPhase()}, final in the JDK, keeps only its generic
 * effect, which these touches reach).
 *
 * <p>State: the phasers of this phaser's tree (created under racelens), for the touches.
 */
public class ModelPhaser extends Phaser {
    /** Every phaser of this tree, root first, in creation order (shared by the tree). */
    private final ArrayList<Phaser> tree;

    public ModelPhaser() {
        this(null, 0);
    }

    public ModelPhaser(int parties) {
        this(null, parties);
    }

    public ModelPhaser(Phaser parent) {
        this(parent, 0);
    }

    public ModelPhaser(Phaser parent, int parties) {
        super(readyToRegister(parent, parties), parties);
        tree = parent instanceof ModelPhaser ? ((ModelPhaser) parent).tree : new ArrayList<>(1);
        tree.add(this);
        touchTree(); // a child with parties registered at its parent
    }

    /** The constructor's argument: waits first when registering at {@code parent} would wait in the JDK. */
    private static Phaser readyToRegister(Phaser parent, int parties) {
        TS s = Rt.me();
        if (s != null && parent != null && parties != 0) {
            waitOutAdvance(s, parent);
        }
        return parent;
    }

    private void touchTree() {
        for (Phaser p : tree) {
            Rt.touch(p);
        }
    }

    /**
     * Waits while registering at {@code p} would wait in the JDK: a tier whose parties have
     * all arrived (the root has not advanced yet), found at {@code p} or, for the first party
     * of a tier, at the parent it then registers with.
     */
    private static void waitOutAdvance(TS s, Phaser p) {
        for (;;) {
            Phaser tier = advancing(p);
            if (tier == null) {
                return;
            }
            int phase = tier.getPhase();
            Models.untilUninterruptibly(s, () -> tier.getPhase() != phase, tier, "waiting to register until the advance of");
        }
    }

    private static Phaser advancing(Phaser p) {
        for (Phaser q = p; q != null && !q.isTerminated(); q = q.getParent()) {
            if (q.getRegisteredParties() > 0) {
                return q.getUnarrivedParties() == 0 ? q : null;
            }
        }
        return null;
    }

    /** Waits until the phase is no longer {@code phase}: its new value (negative once terminated), or {@code phase} on timeout. */
    private int awaitNext(TS s, int phase, boolean interruptible, boolean timed, long nanos) throws InterruptedException {
        String verb = "waiting for phase " + phase + " to end at";
        try {
            if (interruptible) {
                Models.untilCompleted(s, () -> getPhase() != phase, this, verb, timed, nanos);
            } else {
                Models.untilUninterruptibly(s, () -> getPhase() != phase, this, verb);
            }
        } finally {
            touchTree(); // the completion step read the root's phase
        }
        return getPhase();
    }

    @Override
    public int register() {
        TS s = Rt.me();
        if (s != null) {
            waitOutAdvance(s, this);
            touchTree();
        }
        return super.register();
    }

    @Override
    public int bulkRegister(int parties) {
        TS s = Rt.me();
        if (s != null) {
            if (parties > 0) {
                waitOutAdvance(s, this);
            }
            touchTree();
        }
        return super.bulkRegister(parties);
    }

    @Override
    public int arrive() {
        touchTree();
        return super.arrive();
    }

    @Override
    public int arriveAndDeregister() {
        touchTree();
        return super.arriveAndDeregister();
    }

    @Override
    public int arriveAndAwaitAdvance() {
        TS s = Rt.me();
        if (s == null) {
            return super.arriveAndAwaitAdvance();
        }
        touchTree();
        int phase = super.arrive();
        if (phase < 0) {
            return phase; // terminated
        }
        if (getPhase() != phase) {
            return (phase + 1) & Integer.MAX_VALUE; // this arrival advanced it (the JDK returns the next phase even if onAdvance terminated it)
        }
        try {
            return awaitNext(s, phase, false, false, 0);
        } catch (InterruptedException e) {
            throw new AssertionError(e); // not interruptible: never thrown
        }
    }

    @Override
    public int awaitAdvance(int phase) {
        TS s = Rt.me();
        if (s == null) {
            return super.awaitAdvance(phase);
        }
        touchTree();
        int p = getPhase();
        if (phase < 0 || p != phase) {
            return phase < 0 ? phase : p;
        }
        try {
            return awaitNext(s, phase, false, false, 0);
        } catch (InterruptedException e) {
            throw new AssertionError(e); // not interruptible: never thrown
        }
    }

    @Override
    public int awaitAdvanceInterruptibly(int phase) throws InterruptedException {
        TS s = Rt.me();
        if (s == null) {
            return super.awaitAdvanceInterruptibly(phase);
        }
        touchTree();
        int p = getPhase();
        if (phase < 0 || p != phase) {
            return phase < 0 ? phase : p;
        }
        return awaitNext(s, phase, true, false, 0);
    }

    @Override
    public int awaitAdvanceInterruptibly(int phase, long timeout, TimeUnit unit) throws InterruptedException, TimeoutException {
        TS s = Rt.me();
        if (s == null) {
            return super.awaitAdvanceInterruptibly(phase, timeout, unit);
        }
        touchTree();
        int p = getPhase();
        if (phase < 0 || p != phase) {
            return phase < 0 ? phase : p;
        }
        p = awaitNext(s, phase, true, true, unit.toNanos(timeout));
        if (p == phase) {
            throw new TimeoutException();
        }
        return p;
    }

    @Override
    public void forceTermination() {
        touchTree();
        super.forceTermination();
    }
}
