package racelens.rt;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * What the JDK's introspection answers for controlled threads, read from the model: the state
 * {@code Thread.getState()} reports, whether a thread holds a monitor ({@code Thread.holdsLock}),
 * and which threads wait for a model lock or another blocker (the queue queries of locks,
 * semaphores and synchronizers). A controlled thread is really parked in racelens whenever it
 * does not run, so the JDK's own answers would say {@code WAITING} for every one of them.
 *
 * <p>The states follow the JDK's (Thread.State's Javadoc): {@code BLOCKED} while waiting to enter
 * a monitor (or to enter it again after {@code wait}), {@code WAITING} in an untimed
 * {@code wait}, {@code join}, {@code park} or a wait inside a {@code java.util.concurrent}
 * class (a lock of {@code java.util.concurrent.locks} parks, it never blocks),
 * {@code TIMED_WAITING} in {@code sleep} and the timed versions, {@code RUNNABLE} otherwise
 * (a thread waiting for its turn at a scheduling point could run), {@code TERMINATED} once it
 * ended in the model.
 *
 * <p>State: none of its own (the thread table is {@link Sched}'s, the monitors
 * {@link Monitors}').
 */
final class ThreadStates {
    private ThreadStates() {}

    /** {@code Thread.getState()} of {@code t}, a thread of this execution. */
    static Thread.State of(TS t) {
        if (t.finished) {
            return Thread.State.TERMINATED;
        }
        if (t.blocker != null) {
            Blocker b = t.blocker;
            if (b instanceof Mon) {
                return objectMonitor((Mon) b) ? Thread.State.BLOCKED : t.timed ? Thread.State.TIMED_WAITING : Thread.State.WAITING;
            }
            if (b instanceof Monitors.Notified) {
                Monitors.Notified n = (Monitors.Notified) b;
                if (!n.candidate) {
                    // notified: enters the monitor again (BLOCKED), or acquires the lock again (an untimed park)
                    return objectMonitor(n.lock) ? Thread.State.BLOCKED : Thread.State.WAITING;
                }
            }
            return t.timed ? Thread.State.TIMED_WAITING : Thread.State.WAITING;
        }
        if (t.pointBlocker != null && !t.pointBlocker.ready(t)) {
            // waits at its point for a lock (a monitor: BLOCKED) or a thread to end (join: WAITING);
            // one whose lock is free is merely waiting for its turn (preempted): RUNNABLE
            Blocker b = t.pointBlocker;
            return b instanceof Mon && objectMonitor((Mon) b) ? Thread.State.BLOCKED : Thread.State.WAITING;
        }
        return Thread.State.RUNNABLE;
    }

    /** What {@code LockSupport.getBlocker} answers for {@code t} (see {@link Threads#getBlocker}). */
    static Object blockerOf(TS t) {
        Blocker b = t.blocker != null ? t.blocker : t.pointBlocker;
        if (t.finished || b == null || b instanceof Threads.SleepBlocker || b instanceof Threads.JoinBlocker) {
            return null;
        }
        if (b instanceof Threads.ParkBlocker) {
            return t.parkBlocker;
        }
        if (b instanceof Mon && objectMonitor((Mon) b)) {
            return null; // monitors set no blocker
        }
        if (b instanceof Monitors.Notified) {
            Monitors.Notified n = (Monitors.Notified) b;
            if (objectMonitor(n.lock)) {
                return null; // Object.wait sets none
            }
            if (n.candidate) {
                return n.what; // waits on a condition: the JDK's blocker is the condition
            }
        }
        Object on = b.waitsOn();
        if (on != null) {
            return on;
        }
        throw new UnsupportedOperationException("racelens: LockSupport.getBlocker(" + t.thread.getName() + ") is not modelled while it is "
                + b.describe(t) + " (the JDK's blocker is an object inside the JDK)");
    }

    /** True when {@code m} is the monitor of an object ({@code synchronized}), not a model lock's own. */
    private static boolean objectMonitor(Mon m) {
        return Monitors.mons.get(m.obj) == m;
    }

    /** {@code Thread.holdsLock(o)} for the controlled thread {@code s}. */
    static boolean holdsLock(TS s, Object o) {
        Mon m = Monitors.mons.get(o);
        if (m == null) {
            return false;
        }
        m.fresh();
        return m.owner == s;
    }

    /**
     * The threads of this execution waiting to acquire model lock {@code m}: at the point of a
     * {@code lock()}, blocked inside an acquisition, or woken from a wait of one of its
     * conditions and acquiring it again (the JDK moves those to the lock's queue). In thread
     * order (the JDK promises no order).
     */
    static List<Thread> queuedOn(Mon m) {
        return waiting(b -> b == m || b instanceof Monitors.Notified && ((Monitors.Notified) b).lock == m && !((Monitors.Notified) b).candidate);
    }

    /** The blockers matching {@code which} of the threads of this execution (each its blocker, or the one it waits for at its point). */
    static List<Blocker> blockers(Predicate<Blocker> which) {
        ArrayList<Blocker> out = new ArrayList<>();
        for (TS t : Sched.threads) {
            if (t.finished) {
                continue;
            }
            if (t.blocker != null && which.test(t.blocker)) {
                out.add(t.blocker);
            } else if (t.pointBlocker != null && which.test(t.pointBlocker)) {
                out.add(t.pointBlocker);
            }
        }
        return out;
    }

    /** The threads of this execution whose blocker (or the blocker they wait for at their point) matches {@code which}. */
    static List<Thread> waiting(Predicate<Blocker> which) {
        ArrayList<Thread> out = new ArrayList<>();
        for (TS t : Sched.threads) {
            if (t.finished) {
                continue;
            }
            if (t.blocker != null && which.test(t.blocker) || t.pointBlocker != null && which.test(t.pointBlocker)) {
                out.add(t.thread);
            }
        }
        return out;
    }

    /**
     * The running thread reads who waits for {@code what} (a queue or wait-set query): the
     * state of every other thread of the execution (each one's blocking and waking writes it),
     * and the lock's ownership.
     */
    static void queuesRead(Object what) {
        if (!Trace.on || Sched.current.thread != Thread.currentThread() || Sched.over) {
            return;
        }
        if (what != null) {
            Trace.effect(Trace.READ, what, Trace.LOCK);
        }
        TS me = Sched.current;
        for (TS t : Sched.threads) {
            if (t != me) {
                Trace.thread(Trace.READ, t.id, Trace.STATE);
            }
        }
    }
}
