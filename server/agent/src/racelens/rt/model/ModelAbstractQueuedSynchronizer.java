package racelens.rt.model;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Set;
import java.util.concurrent.locks.AbstractQueuedSynchronizer;
import racelens.rt.Blocker;
import racelens.rt.Readers;
import racelens.rt.Rt;
import racelens.rt.TS;

/**
 * The superclass of the application's synchronizers instead of {@code AbstractQueuedSynchronizer}
 * (a latch, a mutex, a permit pool built on it): the queue of waiting threads is the model's, so
 * a thread that cannot acquire waits in the model instead of parking inside the JDK. The state
 * ({@code getState}, {@code setState}, {@code compareAndSetState}) stays the JDK's: the
 * application's {@code tryAcquire}, {@code tryRelease}, {@code tryAcquireShared},
 * {@code tryReleaseShared} and {@code isHeldExclusively} run as written, with their scheduling
 * points (each state method is one).
 *
 * <p>The JDK's methods are final, so the instrumenter calls them through {@link FinalCalls},
 * which lands here. They follow JDK 17's {@code acquire(node, arg, shared, interruptible, timed,
 * time)}: a thread tries before it queues; once queued it tries only as the first of the queue,
 * once right after queueing and then each time it is released; a release that succeeds releases
 * the first of the queue, a shared acquisition by the first releases the next if it is shared,
 * the first giving up (a timeout, an interrupt) releases the next; an interrupt of an
 * uninterruptible acquisition stays pending. Conditions ({@link ModelConditionObject}) wait in
 * the order they came (the JDK's {@code signal} moves the longest waiter to the queue), release
 * the whole state and acquire it again as the JDK's do. Every query (queued threads, first,
 * predecessors, contention, a condition's waiters, {@code toString}) answers from the model.
 *
 * <p>Calls from threads racelens does not control go to the JDK's own methods (inherited).
 *
 * <p>State: per execution (reset lazily when {@link Rt#epoch} moves on) the queue and whether
 * it was ever contended.
 */
public abstract class ModelAbstractQueuedSynchronizer extends AbstractQueuedSynchronizer implements Readers {
    private static final long serialVersionUID = 1L;

    /** The JDK methods that only read the synchronizer (their call points read it: {@link Readers}). */
    private static final Set<String> READERS = Set.of("getState", "hasQueuedThreads", "hasContended", "getFirstQueuedThread",
            "isQueued", "hasQueuedPredecessors", "getQueueLength", "getQueuedThreads", "getExclusiveQueuedThreads",
            "getSharedQueuedThreads", "owns", "hasWaiters", "getWaitQueueLength", "getWaitingThreads", "toString");

    /** A thread in the queue, or waiting on a condition. */
    static final class Node {
        final TS ts;
        final boolean shared;
        /** Released: the first of the queue may try again (a release, or the first before it gave up). */
        boolean signalled;
        /** The condition it waits on; null once moved to the queue by a signal, or given up. */
        ModelConditionObject cond;

        Node(TS ts, boolean shared) {
            this.ts = ts;
            this.shared = shared;
        }
    }

    /** Why a thread waits: for its release in the queue, or for a signal on a condition. */
    static final class Wait extends Blocker.Cond {
        final Node node;
        final Object on;
        final boolean signal;

        Wait(Node node, Object on, boolean signal) {
            this.node = node;
            this.on = on;
            this.signal = signal;
        }

        @Override
        protected boolean cond() {
            return signal ? node.cond == null : node.signalled;
        }

        @Override
        public String describe(TS t) {
            return (signal ? "waiting on " : "waiting to acquire ") + Rt.label(on);
        }

        /** The JDK parks with the synchronizer ({@code LockSupport.park(this)}) or the condition as the blocker. */
        @Override
        public Object waitsOn() {
            return on;
        }
    }

    private transient int epoch = -1;
    private transient ArrayList<Node> queue;
    private transient boolean contended;

    protected ModelAbstractQueuedSynchronizer() {
        super();
    }

    @Override
    public boolean readsOnly(String name) {
        return READERS.contains(name);
    }

    /** The queue of this execution, first first. */
    private ArrayList<Node> queue() {
        if (epoch != Rt.epoch || queue == null) {
            epoch = Rt.epoch;
            queue = new ArrayList<>();
            contended = false;
        }
        return queue;
    }

    private void enqueue(Node node) {
        queue().add(node);
        contended = true;
        Rt.touch(this);
        Rt.changed();
    }

    /** The JDK's {@code signalNext(head)}: the first of the queue may try again. */
    private void signalNext() {
        ArrayList<Node> q = queue();
        Rt.touch(this);
        if (!q.isEmpty()) {
            q.get(0).signalled = true;
            Rt.changed();
        }
    }

    /** A queued node gives up (the JDK's {@code cancelAcquire}): when it was first, the next may try. */
    private void cancel(Node node) {
        ArrayList<Node> q = queue();
        int i = q.indexOf(node);
        if (i >= 0) {
            q.remove(i);
            Rt.touch(this);
            if (i == 0) {
                signalNext();
            }
            Rt.changed();
        }
    }

    /**
     * The JDK's main acquire loop for controlled thread {@code s}: {@code node} is null, or a
     * node of a condition wait (in the queue when it was signalled). Returns 1 when acquired, 0
     * on timeout, -1 when interrupted ({@code interruptible} only; the interrupt is cleared).
     */
    private int acquire(TS s, Node node, int arg, boolean shared, boolean interruptible, boolean timed, long deadline) {
        for (;;) {
            ArrayList<Node> q = queue();
            boolean queued = node != null && q.contains(node);
            if (!queued || q.get(0) == node) {
                if (queued) {
                    node.signalled = false; // it tries now: a release from here on releases it again
                }
                boolean acquired;
                try {
                    acquired = shared ? tryAcquireShared(arg) >= 0 : tryAcquire(arg);
                } catch (RuntimeException | Error e) {
                    if (queued) {
                        cancel(node);
                    }
                    throw e;
                }
                if (acquired) {
                    if (queued) {
                        queue().remove(node);
                        Rt.touch(this);
                        Rt.changed();
                        if (shared && !queue().isEmpty() && queue().get(0).shared) {
                            signalNext(); // the JDK's signalNextIfShared
                        }
                    }
                    return 1;
                }
            }
            if (node == null) {
                node = new Node(s, shared);
            }
            if (!queue().contains(node)) {
                enqueue(node);
                if (queue().get(0) == node) {
                    continue; // the first tries once more before it waits, as the JDK's does
                }
            }
            long nanos = 0;
            if (timed) {
                nanos = Models.left(deadline);
                if (nanos <= 0) {
                    cancel(node);
                    return 0;
                }
            }
            if (!node.signalled && !(interruptible && s.interrupted)) {
                Rt.blockOn(s, new Wait(node, this, false), timed, nanos, interruptible, this);
            }
            if (interruptible && s.interrupted) {
                s.interrupted = false;
                cancel(node);
                return -1;
            }
        }
    }

    /** Releases the first of the queue after the application's release succeeded. */
    private boolean released(boolean ok) {
        if (ok) {
            signalNext();
        }
        return ok;
    }

    // =====================================================================================
    // The JDK's acquisitions and releases (FinalCalls calls them for the final methods)

    void modelAcquire(int arg) {
        TS s = Rt.me();
        if (s == null) {
            acquire(arg);
        } else if (!tryAcquire(arg)) {
            acquire(s, null, arg, false, false, false, 0);
        }
    }

    void modelAcquireInterruptibly(int arg) throws InterruptedException {
        TS s = Rt.me();
        if (s == null) {
            acquireInterruptibly(arg);
            return;
        }
        Models.checkInterrupt(s);
        if (!tryAcquire(arg) && acquire(s, null, arg, false, true, false, 0) < 0) {
            throw new InterruptedException();
        }
    }

    boolean modelTryAcquireNanos(int arg, long nanos) throws InterruptedException {
        TS s = Rt.me();
        if (s == null) {
            return tryAcquireNanos(arg, nanos);
        }
        Models.checkInterrupt(s);
        if (tryAcquire(arg)) {
            return true;
        }
        if (nanos <= 0) {
            return false;
        }
        int stat = acquire(s, null, arg, false, true, true, Models.deadline(nanos));
        if (stat < 0) {
            throw new InterruptedException();
        }
        return stat > 0;
    }

    boolean modelRelease(int arg) {
        return Rt.me() == null ? release(arg) : released(tryRelease(arg));
    }

    void modelAcquireShared(int arg) {
        TS s = Rt.me();
        if (s == null) {
            acquireShared(arg);
        } else if (tryAcquireShared(arg) < 0) {
            acquire(s, null, arg, true, false, false, 0);
        }
    }

    void modelAcquireSharedInterruptibly(int arg) throws InterruptedException {
        TS s = Rt.me();
        if (s == null) {
            acquireSharedInterruptibly(arg);
            return;
        }
        Models.checkInterrupt(s);
        if (tryAcquireShared(arg) < 0 && acquire(s, null, arg, true, true, false, 0) < 0) {
            throw new InterruptedException();
        }
    }

    boolean modelTryAcquireSharedNanos(int arg, long nanos) throws InterruptedException {
        TS s = Rt.me();
        if (s == null) {
            return tryAcquireSharedNanos(arg, nanos);
        }
        Models.checkInterrupt(s);
        if (tryAcquireShared(arg) >= 0) {
            return true;
        }
        if (nanos <= 0) {
            return false;
        }
        int stat = acquire(s, null, arg, true, true, true, Models.deadline(nanos));
        if (stat < 0) {
            throw new InterruptedException();
        }
        return stat > 0;
    }

    boolean modelReleaseShared(int arg) {
        return Rt.me() == null ? releaseShared(arg) : released(tryReleaseShared(arg));
    }

    // =====================================================================================
    // The JDK's queries

    /** The queue as of now for a query of the running thread (which reads every thread's state). */
    private ArrayList<Node> queried() {
        Rt.queuesRead(null);
        return queue();
    }

    boolean modelHasQueuedThreads() {
        return Rt.me() == null ? hasQueuedThreads() : !queried().isEmpty();
    }

    boolean modelHasContended() {
        if (Rt.me() == null) {
            return hasContended();
        }
        queried();
        return contended;
    }

    Thread modelGetFirstQueuedThread() {
        if (Rt.me() == null) {
            return getFirstQueuedThread();
        }
        ArrayList<Node> q = queried();
        return q.isEmpty() ? null : q.get(0).ts.thread;
    }

    boolean modelIsQueued(Thread thread) {
        if (thread == null) {
            throw new NullPointerException();
        }
        if (Rt.me() == null) {
            return isQueued(thread);
        }
        for (Node n : queried()) {
            if (n.ts.thread == thread) {
                return true;
            }
        }
        return false;
    }

    boolean modelHasQueuedPredecessors() {
        TS s = Rt.me();
        if (s == null) {
            return hasQueuedPredecessors();
        }
        ArrayList<Node> q = queried();
        return !q.isEmpty() && q.get(0).ts != s;
    }

    int modelGetQueueLength() {
        return Rt.me() == null ? getQueueLength() : queried().size();
    }

    /** The queued threads, last first (the JDK walks its queue from the tail): all, exclusive or shared ones. */
    Collection<Thread> modelGetQueuedThreads(Boolean shared) {
        if (Rt.me() == null) {
            return shared == null ? getQueuedThreads() : shared ? getSharedQueuedThreads() : getExclusiveQueuedThreads();
        }
        ArrayList<Node> q = queried();
        ArrayList<Thread> out = new ArrayList<>();
        for (int i = q.size() - 1; i >= 0; i--) {
            if (shared == null || q.get(i).shared == shared) {
                out.add(q.get(i).ts.thread);
            }
        }
        return out;
    }

    boolean modelOwns(ConditionObject condition) {
        if (condition == null) {
            throw new NullPointerException();
        }
        if (!(condition instanceof ModelConditionObject) || ((ModelConditionObject) condition).sync == null) {
            return owns(condition);
        }
        return ((ModelConditionObject) condition).sync == this;
    }

    /** A condition of this synchronizer (the JDK's checks: {@code IllegalArgumentException("Not owner")}). */
    private ModelConditionObject own(ConditionObject condition) {
        if (!modelOwns(condition)) {
            throw new IllegalArgumentException("Not owner");
        }
        return (ModelConditionObject) condition;
    }

    boolean modelHasWaiters(ConditionObject condition) {
        return Rt.me() == null ? hasWaiters(condition) : !own(condition).waiting().isEmpty();
    }

    int modelGetWaitQueueLength(ConditionObject condition) {
        return Rt.me() == null ? getWaitQueueLength(condition) : own(condition).waiting().size();
    }

    Collection<Thread> modelGetWaitingThreads(ConditionObject condition) {
        return Rt.me() == null ? getWaitingThreads(condition) : own(condition).waiting();
    }

    @Override
    public String toString() {
        if (Rt.me() == null) {
            return super.toString();
        }
        return Models.identity(this, AbstractQueuedSynchronizer.class) + "[State = " + getState() + ", "
                + (queue().isEmpty() ? "" : "non") + "empty queue]";
    }

    // =====================================================================================
    // Conditions

    /**
     * A condition of an application synchronizer ({@code new ConditionObject()} in its code is
     * this). The JDK's {@code await} and {@code signal} are final; the instrumenter calls them
     * through {@link FinalCalls}, which lands here for controlled threads. Made for a synchronizer
     * that is not a model (a class racelens does not instrument), it is the JDK's.
     */
    public static class ModelConditionObject extends AbstractQueuedSynchronizer.ConditionObject {
        private static final long serialVersionUID = 1L;
        final transient ModelAbstractQueuedSynchronizer sync;
        private transient int epoch = -1;
        private transient ArrayList<Node> waiters;

        public ModelConditionObject(AbstractQueuedSynchronizer outer) {
            outer.super();
            sync = outer instanceof ModelAbstractQueuedSynchronizer ? (ModelAbstractQueuedSynchronizer) outer : null;
        }

        /** The calling controlled thread when this condition is the model's; null: the JDK's methods. */
        private TS me() {
            return sync == null ? null : Rt.me();
        }

        /** The waiters of this execution, longest first. */
        private ArrayList<Node> waiters() {
            if (epoch != Rt.epoch || waiters == null) {
                epoch = Rt.epoch;
                waiters = new ArrayList<>();
            }
            return waiters;
        }

        /** The waiting threads, longest first, for a holder of the synchronizer (else {@code IllegalMonitorStateException}). */
        ArrayList<Thread> waiting() {
            if (!sync.isHeldExclusively()) {
                throw new IllegalMonitorStateException();
            }
            Rt.queuesRead(null);
            ArrayList<Thread> out = new ArrayList<>();
            for (Node n : waiters()) {
                out.add(n.ts.thread);
            }
            return out;
        }

        // The JDK's protected queries of a condition (an application subclass of ConditionObject
        // extends this class, so every such condition is one of these), for a condition whose
        // synchronizer is not a model or a caller racelens does not control.

        static boolean jdkHasWaiters(ConditionObject c) {
            return ((ModelConditionObject) c).hasWaiters();
        }

        static int jdkGetWaitQueueLength(ConditionObject c) {
            return ((ModelConditionObject) c).getWaitQueueLength();
        }

        static Collection<Thread> jdkGetWaitingThreads(ConditionObject c) {
            return ((ModelConditionObject) c).getWaitingThreads();
        }

        /** The JDK's {@code enableWait}: joins the waiters and releases the whole state; returns it. */
        private int enableWait(Node node) {
            Rt.touch(this);
            Rt.touch(sync);
            if (sync.isHeldExclusively()) {
                node.cond = this;
                waiters().add(node);
                int saved = sync.getState();
                if (sync.released(sync.tryRelease(saved))) {
                    return saved;
                }
                leave(node);
            }
            throw new IllegalMonitorStateException();
        }

        private void leave(Node node) {
            waiters().remove(node);
            node.cond = null;
        }

        /**
         * {@code await} and its timed forms for controlled thread {@code s}: waits for a signal
         * (or the deadline, or an interrupt when {@code interruptible}), then acquires the saved
         * state again. True when signalled; an interrupt before the signal throws after the
         * state is acquired again, one after it stays pending.
         */
        private boolean await(TS s, boolean interruptible, boolean timed, long deadline) throws InterruptedException {
            if (interruptible) {
                Models.checkInterrupt(s);
            }
            Node node = new Node(s, false);
            int saved = enableWait(node);
            boolean cancelled = false;
            boolean interrupted = false;
            while (node.cond != null) {
                if (interruptible && s.interrupted) {
                    s.interrupted = false;
                    interrupted = true;
                    cancelled = true;
                    leave(node);
                    break;
                }
                long nanos = 0;
                if (timed) {
                    nanos = Models.left(deadline);
                    if (nanos <= 0) {
                        cancelled = true;
                        leave(node);
                        break;
                    }
                }
                Rt.blockOn(s, new Wait(node, this, true), timed, nanos, interruptible, this);
            }
            sync.acquire(s, node, saved, false, false, false, 0);
            if (interrupted) {
                throw new InterruptedException();
            }
            return !cancelled;
        }

        void modelAwait() throws InterruptedException {
            TS s = me();
            if (s == null) {
                await();
            } else {
                await(s, true, false, 0);
            }
        }

        void modelAwaitUninterruptibly() {
            TS s = me();
            if (s == null) {
                awaitUninterruptibly();
                return;
            }
            try {
                await(s, false, false, 0);
            } catch (InterruptedException e) {
                throw new AssertionError(e); // not interruptible: never thrown
            }
        }

        long modelAwaitNanos(long nanos) throws InterruptedException {
            TS s = me();
            if (s == null) {
                return awaitNanos(nanos);
            }
            long deadline = Models.deadline(Math.max(0, nanos));
            await(s, true, true, deadline);
            long remaining = deadline - Rt.clock();
            return remaining <= nanos ? remaining : Long.MIN_VALUE;
        }

        boolean modelAwait(long time, java.util.concurrent.TimeUnit unit) throws InterruptedException {
            TS s = me();
            if (s == null) {
                return await(time, unit);
            }
            return await(s, true, true, Models.deadline(Math.max(0, unit.toNanos(time))));
        }

        boolean modelAwaitUntil(java.util.Date deadline) throws InterruptedException {
            TS s = me();
            if (s == null) {
                return awaitUntil(deadline);
            }
            long ms = deadline.getTime() - Rt.currentTimeMillis();
            return await(s, true, true, Models.deadline(Math.max(0, ms) * 1_000_000L));
        }

        /** The JDK's {@code signal}/{@code signalAll}: the longest waiter (or all) to the synchronizer's queue. */
        void modelSignal(boolean all) {
            if (me() == null) {
                if (all) {
                    signalAll();
                } else {
                    signal();
                }
                return;
            }
            if (!sync.isHeldExclusively()) {
                throw new IllegalMonitorStateException();
            }
            ArrayList<Node> w = waiters();
            while (!w.isEmpty()) {
                Node n = w.remove(0);
                n.cond = null;
                sync.enqueue(n);
                if (!all) {
                    break;
                }
            }
            Rt.touch(this);
            Rt.changed();
        }

        @Override
        public String toString() {
            return Models.identity(this, AbstractQueuedSynchronizer.ConditionObject.class);
        }
    }
}
