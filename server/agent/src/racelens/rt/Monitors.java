package racelens.rt;

import java.util.ArrayList;
import java.util.IdentityHashMap;

/**
 * The model of locks and wait sets: the monitors of objects ({@code synchronized},
 * {@code wait}/{@code notify}) and the operations the lock and condition models build on
 * ({@link #acquire}, {@link #release}, {@link #await}, {@link #signal}). A thread in a wait set
 * is disabled by a {@link Notified} blocker; which waiter a notify wakes is a scheduling choice.
 *
 * <p>State: the monitor of each object used in this execution ({@link #mons}, replaced by every
 * new execution); a {@link Mon}'s own state is reset lazily by epoch.
 */
final class Monitors {
    private Monitors() {}

    static IdentityHashMap<Object, Mon> mons = new IdentityHashMap<>();

    static void reset() {
        mons = new IdentityHashMap<>();
    }

    static Mon mon(Object o) {
        Mon m = mons.get(o);
        if (m == null) {
            m = new Mon(o);
            mons.put(o, m);
        }
        return m;
    }

    static void monitorEnter(Object o, int site) {
        if (o == null) {
            throw new NullPointerException();
        }
        TS s = Sched.me();
        if (s == null) {
            Uncontrolled.ran(site);
            return;
        }
        Mon m = mon(o);
        m.fresh();
        if (s.suppress == 0) {
            // while another thread holds the monitor, wait at the point: the step is taking it
            Sched.gatedPoint(s, site, o, m, false, Trace.ACQUIRE, o, Trace.LOCK);
        }
        acquire(s, m);
    }

    /** Acquires the model lock {@code m} for the running thread {@code s}, blocking while needed. */
    static void acquire(TS s, Mon m) {
        m.fresh();
        boolean waited = false;
        while (m.owner != null && m.owner != s) {
            s.doneKind = Trace.ACQUIRE; // the completion step takes it
            s.doneObj = m.obj;
            s.doneSlot = Trace.LOCK;
            Sched.block(s, m, false, 0, false);
            waited = true;
        }
        if (!waited && m.owner != s && Trace.on) {
            Trace.effect(Trace.ACQUIRE, m.obj, Trace.LOCK);
        }
        m.owner = s;
        m.holds++;
        Sched.changed();
    }

    static void monitorExit(Object o) {
        if (o == null) {
            throw new NullPointerException();
        }
        TS s = Sched.current;
        if (s.thread != Thread.currentThread()) {
            s = Sched.tsOf(Thread.currentThread());
            if (s == null || s.abort) {
                return;
            }
        }
        if (s.abort) {
            return;
        }
        release(s, mon(o));
    }

    static void release(TS s, Mon m) {
        m.fresh();
        if (m.owner != s) {
            if (s.abort) {
                return;
            }
            throw new IllegalMonitorStateException("current thread is not owner");
        }
        if (--m.holds == 0) {
            m.owner = null;
            if (Trace.on) {
                Trace.effect(Trace.RELEASE, m.obj, Trace.LOCK);
            }
            Sched.changed();
        }
    }

    /** Marks a thread in a wait set; {@code candidate} is set while it is in the set. */
    static final class Notified extends Blocker {
        final Mon lock;
        final ArrayList<TS> set;
        final Object what;
        /** The queue of a fair lock the waiter takes again in order; null for any other lock. */
        final FairQueue fair;
        boolean candidate = true;

        Notified(Mon lock, ArrayList<TS> set, Object what, FairQueue fair) {
            this.lock = lock;
            this.set = set;
            this.what = what;
            this.fair = fair;
        }

        @Override
        public boolean ready(TS t) {
            boolean out = !candidate || (t.interruptible && t.interrupted);
            if (!out) {
                return false;
            }
            // Signalled or timed out, it is in the fair lock's queue ({@link #leave}); interrupted
            // while still a candidate, it joins when it leaves the wait set, after this check.
            return fair != null && !candidate ? fair.mayTake(t) : lock.owner == null || lock.owner == t;
        }

        @Override
        public void onTimeout(TS t) {
            leave(t);
        }

        void leave(TS t) {
            if (candidate) {
                candidate = false;
                set.remove(t);
                if (fair != null) {
                    fair.queue(t);
                }
            }
        }

        @Override
        public String describe(TS t) {
            if (candidate) {
                return "waiting on " + Lines.label(what);
            }
            return "blocked on lock " + Lines.label(lock.obj) + " held by " + (lock.owner == null ? "-" : lock.owner.id) + " (after wait)";
        }
    }

    /**
     * Waits in wait set {@code set} of lock {@code m} (held by {@code s}): releases the lock fully,
     * waits for notify/interrupt/timeout, re-acquires. Returns true unless it timed out.
     */
    static boolean await(TS s, Mon m, ArrayList<TS> set, Object what, boolean timed, long nanos,
            boolean interruptible, FairQueue fair) throws InterruptedException {
        m.fresh();
        if (m.owner != s) {
            throw new IllegalMonitorStateException("current thread is not owner");
        }
        if (interruptible && s.interrupted) {
            s.interrupted = false;
            throw new InterruptedException();
        }
        int saved = m.holds;
        m.owner = null;
        m.holds = 0;
        Notified n = new Notified(m, set, what, fair);
        set.add(s);
        if (Trace.on) {
            Trace.effect(Trace.RELEASE, m.obj, Trace.LOCK);
            Trace.effect(Trace.WRITE, what, Trace.WAITSET);
        }
        Sched.changed();
        try {
            // when notified (or timed out): the monitor taken again
            s.doneKind = Trace.ACQUIRE;
            s.doneObj = m.obj;
            s.doneSlot = Trace.LOCK;
            Sched.block(s, n, timed, nanos, interruptible);
        } finally {
            n.leave(s);
        }
        boolean timedOut = s.timedOut;
        // the lock is free or ours here (ready() checked it)
        m.owner = s;
        m.holds = saved;
        if (fair != null) {
            fair.took(s);
        }
        Sched.changed();
        if (interruptible && s.interrupted) {
            s.interrupted = false;
            throw new InterruptedException();
        }
        return !timedOut;
    }

    /** Wakes one waiter of {@code set}; the waiter is a scheduling choice when there are several. */
    static void signal(TS s, ArrayList<TS> set, Object what, int site) {
        if (Trace.on) {
            Trace.effect(Trace.WRITE, what, Trace.WAITSET);
        }
        if (set.isEmpty()) {
            return;
        }
        TS w = set.get(0);
        if (set.size() > 1) {
            int d = Sched.decisions++;
            if (d < Sched.choices.length) {
                TS c = Sched.byId(Sched.choices[d]);
                if (c == null || !set.contains(c)) {
                    StringBuilder m = new StringBuilder();
                    Lines.mask(m, true);
                    Sched.diverge(d, Sched.choices[d], m.toString());
                }
                w = c;
            }
            StringBuilder m = new StringBuilder();
            Lines.mask(m, true);
            Lines.appendD(w.id, site, m.toString(), s.id);
        }
        ((Notified) w.blocker).leave(w);
        if (Trace.on) {
            Trace.thread(Trace.WRITE, w.id, Trace.STATE); // from WAITING to BLOCKED on a monitor
        }
        Sched.changed();
    }

    /** Wakes the longest waiter of {@code set} (a j.u.c. condition's {@code signal}): no choice. */
    static void signalLongestWaiting(TS s, ArrayList<TS> set, Object what) {
        if (Trace.on) {
            Trace.effect(Trace.WRITE, what, Trace.WAITSET);
        }
        if (set.isEmpty()) {
            return;
        }
        TS w = set.get(0);
        ((Notified) w.blocker).leave(w);
        if (Trace.on) {
            Trace.thread(Trace.WRITE, w.id, Trace.STATE); // from WAITING to BLOCKED on the lock
        }
        Sched.changed();
    }

    static void signalAll(TS s, ArrayList<TS> set, Object what) {
        if (Trace.on) {
            Trace.effect(Trace.WRITE, what, Trace.WAITSET);
        }
        while (!set.isEmpty()) {
            TS w = set.get(0);
            ((Notified) w.blocker).leave(w);
            if (Trace.on) {
                Trace.thread(Trace.WRITE, w.id, Trace.STATE);
            }
        }
        Sched.changed();
    }

    private static Mon held(TS s, Object o) {
        Mon m = mon(o);
        m.fresh();
        if (m.owner != s) {
            throw new IllegalMonitorStateException("current thread is not owner");
        }
        return m;
    }

    static void wait(Object o, int site) throws InterruptedException {
        TS s = Sched.op(site, o);
        if (s == null) {
            o.wait();
            return;
        }
        Mon m = held(s, o);
        await(s, m, m.waitSet, o, false, 0, true, null);
    }

    static void wait(Object o, long millis, int site) throws InterruptedException {
        if (millis < 0) {
            throw new IllegalArgumentException("timeout value is negative");
        }
        TS s = Sched.op(site, o);
        if (s == null) {
            o.wait(millis);
            return;
        }
        Mon m = held(s, o);
        await(s, m, m.waitSet, o, millis > 0, millis * 1_000_000L, true, null);
    }

    static void wait(Object o, long millis, int nanos, int site) throws InterruptedException {
        wait(o, millis + (nanos > 0 ? 1 : 0), site);
    }

    static void notify(Object o, int site) {
        TS s = Sched.op(site, o);
        if (s == null) {
            o.notify();
            return;
        }
        Mon m = held(s, o);
        signal(s, m.waitSet, o, site);
    }

    static void notifyAll(Object o, int site) {
        TS s = Sched.op(site, o);
        if (s == null) {
            o.notifyAll();
            return;
        }
        Mon m = held(s, o);
        signalAll(s, m.waitSet, o);
    }
}
