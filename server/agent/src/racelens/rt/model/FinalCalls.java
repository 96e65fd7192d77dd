package racelens.rt.model;

import java.util.Collection;
import java.util.Date;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.AbstractQueuedSynchronizer;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import racelens.rt.Rt;

/**
 * The JDK's final methods of the modelled lock families, as static calls the instrumenter puts
 * in their place (receiver first, the same arguments; see {@code JdkApi}): no model subclass can
 * override them, and the JDK's versions would read the JDK's own queues, which the models never
 * fill. Each answers from the model when the receiver is a model and the caller a controlled
 * thread, and is the JDK's method otherwise (a lock a library made, a thread racelens does not
 * control).
 *
 * <p>{@code ReentrantLock}'s and {@code ReentrantReadWriteLock}'s {@code hasQueuedThreads},
 * {@code hasQueuedThread}, {@code getQueueLength}; {@code Semaphore}'s {@code hasQueuedThreads},
 * {@code getQueueLength}; every final method of {@code AbstractQueuedSynchronizer} but the state
 * ones; and {@code Condition}'s {@code await}/{@code signal} methods, final in
 * {@code AbstractQueuedSynchronizer.ConditionObject} (for any other condition they are plain
 * interface calls).
 *
 * <p>State: none.
 */
public final class FinalCalls {
    private FinalCalls() {}

    // =====================================================================================
    // ReentrantLock, ReentrantReadWriteLock, Semaphore

    private static java.util.List<Thread> queued(Object lock) {
        if (Rt.me() == null) {
            return null;
        }
        if (lock instanceof ModelReentrantLock) {
            return ((ModelReentrantLock) lock).queued();
        }
        if (lock instanceof ModelReentrantReadWriteLock) {
            return ((ModelReentrantReadWriteLock) lock).queued(true, true);
        }
        if (lock instanceof ModelSemaphore) {
            return ((ModelSemaphore) lock).queued();
        }
        return null;
    }

    public static boolean hasQueuedThreads(ReentrantLock lock) {
        java.util.List<Thread> q = queued(lock);
        return q == null ? lock.hasQueuedThreads() : !q.isEmpty();
    }

    public static boolean hasQueuedThread(ReentrantLock lock, Thread thread) {
        if (thread == null) {
            throw new NullPointerException();
        }
        java.util.List<Thread> q = queued(lock);
        return q == null ? lock.hasQueuedThread(thread) : q.contains(thread);
    }

    public static int getQueueLength(ReentrantLock lock) {
        java.util.List<Thread> q = queued(lock);
        return q == null ? lock.getQueueLength() : q.size();
    }

    public static boolean hasQueuedThreads(ReentrantReadWriteLock lock) {
        java.util.List<Thread> q = queued(lock);
        return q == null ? lock.hasQueuedThreads() : !q.isEmpty();
    }

    public static boolean hasQueuedThread(ReentrantReadWriteLock lock, Thread thread) {
        if (thread == null) {
            throw new NullPointerException();
        }
        java.util.List<Thread> q = queued(lock);
        return q == null ? lock.hasQueuedThread(thread) : q.contains(thread);
    }

    public static int getQueueLength(ReentrantReadWriteLock lock) {
        java.util.List<Thread> q = queued(lock);
        return q == null ? lock.getQueueLength() : q.size();
    }

    public static boolean hasQueuedThreads(Semaphore semaphore) {
        java.util.List<Thread> q = queued(semaphore);
        return q == null ? semaphore.hasQueuedThreads() : !q.isEmpty();
    }

    public static int getQueueLength(Semaphore semaphore) {
        java.util.List<Thread> q = queued(semaphore);
        return q == null ? semaphore.getQueueLength() : q.size();
    }

    // =====================================================================================
    // AbstractQueuedSynchronizer

    private static ModelAbstractQueuedSynchronizer model(AbstractQueuedSynchronizer sync) {
        if (sync == null) {
            throw new NullPointerException();
        }
        return sync instanceof ModelAbstractQueuedSynchronizer ? (ModelAbstractQueuedSynchronizer) sync : null;
    }

    public static void acquire(AbstractQueuedSynchronizer sync, int arg) {
        ModelAbstractQueuedSynchronizer m = model(sync);
        if (m == null) {
            sync.acquire(arg);
        } else {
            m.modelAcquire(arg);
        }
    }

    public static void acquireInterruptibly(AbstractQueuedSynchronizer sync, int arg) throws InterruptedException {
        ModelAbstractQueuedSynchronizer m = model(sync);
        if (m == null) {
            sync.acquireInterruptibly(arg);
        } else {
            m.modelAcquireInterruptibly(arg);
        }
    }

    public static boolean tryAcquireNanos(AbstractQueuedSynchronizer sync, int arg, long nanos) throws InterruptedException {
        ModelAbstractQueuedSynchronizer m = model(sync);
        return m == null ? sync.tryAcquireNanos(arg, nanos) : m.modelTryAcquireNanos(arg, nanos);
    }

    public static boolean release(AbstractQueuedSynchronizer sync, int arg) {
        ModelAbstractQueuedSynchronizer m = model(sync);
        return m == null ? sync.release(arg) : m.modelRelease(arg);
    }

    public static void acquireShared(AbstractQueuedSynchronizer sync, int arg) {
        ModelAbstractQueuedSynchronizer m = model(sync);
        if (m == null) {
            sync.acquireShared(arg);
        } else {
            m.modelAcquireShared(arg);
        }
    }

    public static void acquireSharedInterruptibly(AbstractQueuedSynchronizer sync, int arg) throws InterruptedException {
        ModelAbstractQueuedSynchronizer m = model(sync);
        if (m == null) {
            sync.acquireSharedInterruptibly(arg);
        } else {
            m.modelAcquireSharedInterruptibly(arg);
        }
    }

    public static boolean tryAcquireSharedNanos(AbstractQueuedSynchronizer sync, int arg, long nanos) throws InterruptedException {
        ModelAbstractQueuedSynchronizer m = model(sync);
        return m == null ? sync.tryAcquireSharedNanos(arg, nanos) : m.modelTryAcquireSharedNanos(arg, nanos);
    }

    public static boolean releaseShared(AbstractQueuedSynchronizer sync, int arg) {
        ModelAbstractQueuedSynchronizer m = model(sync);
        return m == null ? sync.releaseShared(arg) : m.modelReleaseShared(arg);
    }

    public static boolean hasQueuedThreads(AbstractQueuedSynchronizer sync) {
        ModelAbstractQueuedSynchronizer m = model(sync);
        return m == null ? sync.hasQueuedThreads() : m.modelHasQueuedThreads();
    }

    public static boolean hasContended(AbstractQueuedSynchronizer sync) {
        ModelAbstractQueuedSynchronizer m = model(sync);
        return m == null ? sync.hasContended() : m.modelHasContended();
    }

    public static Thread getFirstQueuedThread(AbstractQueuedSynchronizer sync) {
        ModelAbstractQueuedSynchronizer m = model(sync);
        return m == null ? sync.getFirstQueuedThread() : m.modelGetFirstQueuedThread();
    }

    public static boolean isQueued(AbstractQueuedSynchronizer sync, Thread thread) {
        ModelAbstractQueuedSynchronizer m = model(sync);
        return m == null ? sync.isQueued(thread) : m.modelIsQueued(thread);
    }

    public static boolean hasQueuedPredecessors(AbstractQueuedSynchronizer sync) {
        ModelAbstractQueuedSynchronizer m = model(sync);
        return m == null ? sync.hasQueuedPredecessors() : m.modelHasQueuedPredecessors();
    }

    public static int getQueueLength(AbstractQueuedSynchronizer sync) {
        ModelAbstractQueuedSynchronizer m = model(sync);
        return m == null ? sync.getQueueLength() : m.modelGetQueueLength();
    }

    public static Collection<Thread> getQueuedThreads(AbstractQueuedSynchronizer sync) {
        ModelAbstractQueuedSynchronizer m = model(sync);
        return m == null ? sync.getQueuedThreads() : m.modelGetQueuedThreads(null);
    }

    public static Collection<Thread> getExclusiveQueuedThreads(AbstractQueuedSynchronizer sync) {
        ModelAbstractQueuedSynchronizer m = model(sync);
        return m == null ? sync.getExclusiveQueuedThreads() : m.modelGetQueuedThreads(false);
    }

    public static Collection<Thread> getSharedQueuedThreads(AbstractQueuedSynchronizer sync) {
        ModelAbstractQueuedSynchronizer m = model(sync);
        return m == null ? sync.getSharedQueuedThreads() : m.modelGetQueuedThreads(true);
    }

    public static boolean owns(AbstractQueuedSynchronizer sync, AbstractQueuedSynchronizer.ConditionObject condition) {
        ModelAbstractQueuedSynchronizer m = model(sync);
        return m == null ? sync.owns(condition) : m.modelOwns(condition);
    }

    public static boolean hasWaiters(AbstractQueuedSynchronizer sync, AbstractQueuedSynchronizer.ConditionObject condition) {
        ModelAbstractQueuedSynchronizer m = model(sync);
        return m == null ? sync.hasWaiters(condition) : m.modelHasWaiters(condition);
    }

    public static int getWaitQueueLength(AbstractQueuedSynchronizer sync, AbstractQueuedSynchronizer.ConditionObject condition) {
        ModelAbstractQueuedSynchronizer m = model(sync);
        return m == null ? sync.getWaitQueueLength(condition) : m.modelGetWaitQueueLength(condition);
    }

    public static Collection<Thread> getWaitingThreads(AbstractQueuedSynchronizer sync, AbstractQueuedSynchronizer.ConditionObject condition) {
        ModelAbstractQueuedSynchronizer m = model(sync);
        return m == null ? sync.getWaitingThreads(condition) : m.modelGetWaitingThreads(condition);
    }

    // =====================================================================================
    // Condition (final in AbstractQueuedSynchronizer.ConditionObject)

    private static ModelAbstractQueuedSynchronizer.ModelConditionObject ownModel(AbstractQueuedSynchronizer.ConditionObject c) {
        ModelAbstractQueuedSynchronizer.ModelConditionObject m = model(c);
        return m != null && m.sync != null && Rt.me() != null ? m : null;
    }

    /** {@code ConditionObject}'s protected {@code hasWaiters()}, called by an application subclass of it. */
    public static boolean hasWaiters(AbstractQueuedSynchronizer.ConditionObject c) {
        ModelAbstractQueuedSynchronizer.ModelConditionObject m = ownModel(c);
        return m == null ? ModelAbstractQueuedSynchronizer.ModelConditionObject.jdkHasWaiters(c) : !m.waiting().isEmpty();
    }

    public static int getWaitQueueLength(AbstractQueuedSynchronizer.ConditionObject c) {
        ModelAbstractQueuedSynchronizer.ModelConditionObject m = ownModel(c);
        return m == null ? ModelAbstractQueuedSynchronizer.ModelConditionObject.jdkGetWaitQueueLength(c) : m.waiting().size();
    }

    public static Collection<Thread> getWaitingThreads(AbstractQueuedSynchronizer.ConditionObject c) {
        ModelAbstractQueuedSynchronizer.ModelConditionObject m = ownModel(c);
        return m == null ? ModelAbstractQueuedSynchronizer.ModelConditionObject.jdkGetWaitingThreads(c) : m.waiting();
    }

    private static ModelAbstractQueuedSynchronizer.ModelConditionObject model(Condition c) {
        if (c == null) {
            throw new NullPointerException();
        }
        return c instanceof ModelAbstractQueuedSynchronizer.ModelConditionObject ? (ModelAbstractQueuedSynchronizer.ModelConditionObject) c : null;
    }

    public static void await(Condition c) throws InterruptedException {
        ModelAbstractQueuedSynchronizer.ModelConditionObject m = model(c);
        if (m == null) {
            c.await();
        } else {
            m.modelAwait();
        }
    }

    public static void awaitUninterruptibly(Condition c) {
        ModelAbstractQueuedSynchronizer.ModelConditionObject m = model(c);
        if (m == null) {
            c.awaitUninterruptibly();
        } else {
            m.modelAwaitUninterruptibly();
        }
    }

    public static long awaitNanos(Condition c, long nanos) throws InterruptedException {
        ModelAbstractQueuedSynchronizer.ModelConditionObject m = model(c);
        return m == null ? c.awaitNanos(nanos) : m.modelAwaitNanos(nanos);
    }

    public static boolean await(Condition c, long time, TimeUnit unit) throws InterruptedException {
        ModelAbstractQueuedSynchronizer.ModelConditionObject m = model(c);
        return m == null ? c.await(time, unit) : m.modelAwait(time, unit);
    }

    public static boolean awaitUntil(Condition c, Date deadline) throws InterruptedException {
        ModelAbstractQueuedSynchronizer.ModelConditionObject m = model(c);
        return m == null ? c.awaitUntil(deadline) : m.modelAwaitUntil(deadline);
    }

    public static void signal(Condition c) {
        ModelAbstractQueuedSynchronizer.ModelConditionObject m = model(c);
        if (m == null) {
            c.signal();
        } else {
            m.modelSignal(false);
        }
    }

    public static void signalAll(Condition c) {
        ModelAbstractQueuedSynchronizer.ModelConditionObject m = model(c);
        if (m == null) {
            c.signalAll();
        } else {
            m.modelSignal(true);
        }
    }
}
