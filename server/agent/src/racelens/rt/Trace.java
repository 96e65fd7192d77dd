package racelens.rt;

/**
 * What each step of an execution did to shared state (RUN option {@code trace};
 * PROTOCOL.md, "Effects"): the thread that ran every step, and the effects of each step — the
 * variables it read or wrote, the locks it took or released, the threads it started or
 * joined. The controller's search reduces by them: schedules that order every pair of
 * conflicting steps the same way are equivalent, and only one of them needs to run.
 *
 * <p>A step is the code from one scheduling point to the next. Its effects are its point's own
 * access, and whatever the thread does before its next point without one: a lock released, an
 * array copied, a callback of an atomic JDK call, the logical clock read.
 *
 * <p>Objects are named by their birth: the object a controlled thread allocates as its
 * {@code n}th in the execution (application code: {@code new}, arrays) is {@code (thread + 1)
 * << 20 | n}, whatever the other threads did meanwhile, so equivalent schedules — and a replay —
 * name every object alike, and a name the controller keeps from one run (a thread's next step in
 * a sleep set) means the same object in another. Objects born elsewhere (in JDK code, before
 * the execution, past the cap) are numbered below {@code 1 << 20} in order of first use when
 * the response is written: the same whenever the schedule is the same.
 *
 * <p>State: per step its thread; per effect its step, kind, object and slot; the names of the
 * objects born so far (application classes carry theirs, {@link Tagged}; others are listed).
 */
final class Trace {
    private Trace() {}

    /** Kinds of effect, as the protocol writes them. */
    static final byte READ = 'r', WRITE = 'w', ADD = 'c', ACQUIRE = 'a', RELEASE = 'u', START = 's', JOIN = 'j', GLOBAL = 'g';

    /** Slots (PROTOCOL.md): field ids are >= 0. */
    static final int ARRAY = -1, CALL = -2, LOCK = -3, WAITSET = -4;
    /** Slots of a thread's own variables; {@code STATE} is what {@code Thread.getState()} and the queue queries read. */
    static final int LIFE = 0, PERMIT = 1, INTERRUPT = 2, STATE = 3;
    static final int CLOCK = 0, RANDOMS = 1, MATH_RANDOM = 2;

    /** Stand-ins for the objects of variables that are not objects. */
    static final Object THREAD_VARS = new Object();
    static final Object GLOBAL_VARS = new Object();

    static boolean on;

    static byte[] threadOf = new byte[1 << 12];
    /** The site of each step's point (0: a step without one: a thread's BEGIN, a completion). */
    static int[] siteOf = new int[1 << 12];
    static int steps;

    /** RUN option {@code stepsites} (with {@code trace}): an {@code S} line with every step's site. */
    static boolean stepSites;
    static boolean stepSitesNext;

    static int count;
    static int[] step = new int[1 << 12];
    static byte[] kind = new byte[1 << 12];
    static Object[] obj = new Object[1 << 12];
    static int[] slot = new int[1 << 12];

    /**
     * RUN option {@code alloc} (with {@code trace}): after the X and P lines, an {@code N} line
     * for every object they name, with its class and allocation site, so that the controller
     * can compare objects across program versions by allocation site (ReConTest §III.B).
     */
    static boolean allocs;
    static boolean allocsNext;
    /** Birth name → {@code NEW} site of the allocation, this execution (option alloc). */
    private static final java.util.HashMap<Integer, Integer> allocSite = new java.util.HashMap<>();
    /** Object number → class, of the objects this response names (option alloc). */
    private static final java.util.TreeMap<Integer, String> named = new java.util.TreeMap<>();

    static void reset(boolean enabled) {
        java.util.Arrays.fill(obj, 0, count, null);
        java.util.Arrays.fill(bornObj, 0, bornCount, null);
        bornCount = 0;
        allocs = enabled && allocsNext;
        allocsNext = false;
        stepSites = enabled && stepSitesNext;
        stepSitesNext = false;
        allocSite.clear();
        named.clear();
        on = enabled;
        steps = 0;
        count = 0;
    }

    /** Step {@code k} is run by thread {@code t}; effects from now on are its. */
    static void step(int k, int t) {
        if (k >= threadOf.length) {
            threadOf = java.util.Arrays.copyOf(threadOf, Math.max(k + 1, threadOf.length * 2));
            siteOf = java.util.Arrays.copyOf(siteOf, threadOf.length);
        }
        threadOf[k] = (byte) t;
        siteOf[k] = 0;
        steps = k + 1;
    }

    /** An effect of the step being run. */
    static void effect(byte k, Object o, int s) {
        int n = count;
        if (n == step.length) {
            int len = n * 2;
            step = java.util.Arrays.copyOf(step, len);
            kind = java.util.Arrays.copyOf(kind, len);
            obj = java.util.Arrays.copyOf(obj, len);
            slot = java.util.Arrays.copyOf(slot, len);
        }
        step[n] = Math.max(0, steps - 1); // before the first point: thread 0's first step
        kind[n] = k;
        obj[n] = o;
        slot[n] = s;
        count = n + 1;
    }

    /** Step {@code k} of thread {@code t} at scheduling point {@code site}, on object {@code o}. */
    static void point(int k, int t, Object o, int site) {
        step(k, t);
        siteOf[k] = site;
        access(o, site);
    }

    /** The effect of the access at {@code site} (field, array element, call), if it has one. */
    static void access(Object o, int site) {
        switch (Sites.kind(site)) {
            case Sites.K_READ:
                effect(READ, o, Sites.field[site]);
                break;
            case Sites.K_WRITE:
                effect(WRITE, o, Sites.field[site]);
                break;
            case Sites.K_AREAD:
                effect(READ, o, ARRAY);
                break;
            case Sites.K_AWRITE:
                effect(WRITE, o, ARRAY);
                break;
            case Sites.K_CALL:
                if (o instanceof OwnEffects) {
                    break; // the model records its own
                }
                if (o != null) {
                    effect(Pure.reads(o, site) ? READ : Pure.commutes(o, site) ? ADD : WRITE, o, CALL);
                } else if (!Pure.isStatic(site)) {
                    effect(GLOBAL, null, 0); // a static JDK call: its effects are not seen
                }
                break;
            default:
                break; // operations record their own effects
        }
    }

    static void thread(byte k, int tid, int s) {
        effect(k, THREAD_VARS, (tid << 4) | s);
    }

    static void global(int s) {
        effect(WRITE, GLOBAL_VARS, s);
    }

    // =====================================================================================
    // Names

    /** Objects born in this execution that carry no name of their own, oldest first (capped). */
    private static Object[] bornObj = new Object[256];
    private static int[] bornId = new int[256];
    private static int bornCount;
    private static final int MAX_BORN = 1 << 14;

    /** {@code o} was just allocated by controlled thread {@code s} (or named already). */
    static void born(Object o, TS s) {
        if (birthName(o) != 0 && o instanceof Tagged) {
            return;
        }
        int n = ++s.births;
        if (n >= 1 << 20 || s.id >= 1 << 10) {
            return;
        }
        int id = ((s.id + 1) << 20) | n;
        if (o instanceof Tagged) {
            ((Tagged) o).$racelens$tag(((long) Rt.epoch << 32) | id);
            return;
        }
        if (bornCount == bornObj.length) {
            if (bornCount == MAX_BORN) {
                return;
            }
            bornObj = java.util.Arrays.copyOf(bornObj, bornCount * 2);
            bornId = java.util.Arrays.copyOf(bornId, bornCount * 2);
        }
        bornObj[bornCount] = o;
        bornId[bornCount] = id;
        bornCount++;
    }

    /** Object {@code o}, just born, was allocated at {@code NEW} site {@code site} (the first site counts). */
    static void allocatedAt(Object o, int site) {
        int b = birthName(o);
        if (b != 0 && !allocSite.containsKey(b)) {
            allocSite.put(b, site);
            Sites.announce(site, Lines.siteLines);
        }
    }

    /**
     * The object number of an effect on {@code o} (slot {@code s}) as the response will write it,
     * when the object has a birth name or is no object; else some number below {@link Sleep#BORN}.
     */
    static int nameNow(Object o, int s) {
        if (o == THREAD_VARS) {
            return -1 - (s >> 4);
        }
        if (o == GLOBAL_VARS) {
            return -1000;
        }
        if (o == null) {
            return 0;
        }
        if (o instanceof Tagged) {
            long v = ((Tagged) o).$racelens$tag();
            return (int) (v >>> 32) == Rt.epoch ? (int) v : 1;
        }
        int born = bornName(o);
        return born != 0 ? born : 1;
    }

    /** The slot of an effect as the response will write it. */
    static int slotNow(Object o, int s) {
        return o == THREAD_VARS ? s & 15 : s;
    }

    /** The birth name of any object, 0 if it was not born in this execution. */
    static int birthName(Object o) {
        if (o instanceof Tagged) {
            long v = ((Tagged) o).$racelens$tag();
            int id = (int) v;
            return (int) (v >>> 32) == Rt.epoch && id >= Sleep.BORN ? id : 0;
        }
        return bornName(o);
    }

    /** The birth name of an untagged object, 0 if it was not born here. */
    private static int bornName(Object o) {
        // Oldest first: shared objects are mostly made before the threads that share them.
        for (int i = 0; i < bornCount; i++) {
            if (bornObj[i] == o) {
                return bornId[i];
            }
        }
        return 0;
    }

    // =====================================================================================
    // The response

    /** Object numbers of this response: tagged objects carry theirs, others are looked up. */
    private static Object[] untagged = new Object[64];
    private static int untaggedCount;
    private static int seq;

    private static int idOf(Object o) {
        int id = numberOf(o);
        if (allocs && !named.containsKey(id)) {
            // A Class is a static lock: which class counts, not that it is a Class.
            named.put(id, o instanceof Class ? "java.lang.Class<" + ((Class<?>) o).getName() + ">" : o.getClass().getName());
        }
        return id;
    }

    private static int numberOf(Object o) {
        if (o instanceof Tagged) {
            Tagged t = (Tagged) o;
            long v = t.$racelens$tag();
            if ((int) (v >>> 32) == Rt.epoch) {
                return (int) v;
            }
            int id = ++seq;
            t.$racelens$tag(((long) Rt.epoch << 32) | id);
            return id;
        }
        // Identity hash codes are all the same here (-XX:hashCode=2): lists, this response's
        // newest first.
        for (int i = untaggedCount - 1; i >= 0; i -= 2) {
            if (untagged[i - 1] == o) {
                return (int) (long) (Long) untagged[i];
            }
        }
        if (untaggedCount + 2 > untagged.length) {
            untagged = java.util.Arrays.copyOf(untagged, untagged.length * 2);
        }
        int born = bornName(o);
        int id = born != 0 ? born : ++seq;
        untagged[untaggedCount++] = o;
        untagged[untaggedCount++] = (long) id;
        return id;
    }

    /** The X line (every step with its effects) and the P line (what live threads were about to do). */
    static void write(StringBuilder out, TS[] threads) {
        if (!on) {
            return;
        }
        seq = 0;
        untaggedCount = 0;
        out.append('X');
        int e = 0;
        for (int k = 0; k < steps; k++) {
            out.append(' ').append(threadOf[k]);
            while (e < count && step[e] == k) {
                code(out, e);
                e++;
            }
        }
        out.append('\n');
        if (stepSites) {
            // S <site of step 0> <site of step 1> ...: the sites first, as any response does.
            for (int k = 0; k < steps; k++) {
                Sites.announce(siteOf[k], out);
            }
            out.append('S');
            for (int k = 0; k < steps; k++) {
                out.append(' ').append(siteOf[k]);
            }
            out.append('\n');
        }
        out.append('P');
        for (TS t : threads) {
            if (!t.finished) {
                out.append(' ').append(t.id).append(':');
                int before = count;
                pending(t);
                for (int i = before; i < count; i++) {
                    code(out, i);
                }
                count = before;
            }
        }
        out.append('\n');
        java.util.Arrays.fill(untagged, 0, untaggedCount, null);
        untaggedCount = 0;
        if (allocs) {
            // N <object> <NEW site, or - when it was not born in application code> <class>
            for (java.util.Map.Entry<Integer, String> n : named.entrySet()) {
                Integer site = allocSite.get(n.getKey());
                out.append("N ").append(n.getKey()).append(' ').append(site == null ? "-" : site.toString()).append(' ')
                        .append(n.getValue()).append('\n');
            }
        }
    }

    /** The effects of what live thread {@code t} was about to do (appended, then dropped). */
    private static void pending(TS t) {
        if (!t.begun) {
            return; // its BEGIN step: nothing
        }
        if ((t.blocker != null || t.pointBlocker != null) && t.doneKind != 0) {
            effect(t.doneKind, t.doneObj, t.doneSlot);
            return;
        }
        if (t.blocker != null) {
            return; // sleeping, or waiting for something without an effect of its own
        }
        switch (Sites.kind(t.pendingSite)) {
            case Sites.K_LOCK:
                effect(ACQUIRE, t.pendingObj, LOCK);
                break;
            case Sites.K_JOIN:
                TS target = t.pendingObj instanceof Thread ? Sched.tsOf((Thread) t.pendingObj) : null;
                if (target != null) {
                    thread(JOIN, target.id, 0);
                }
                break;
            default:
                access(t.pendingObj, t.pendingSite);
                break;
        }
    }

    private static void code(StringBuilder out, int i) {
        byte k = kind[i];
        Object o = obj[i];
        int s = slot[i];
        out.append((char) k);
        if (k == GLOBAL) {
            return;
        }
        if (k == START || k == JOIN) {
            out.append(s >> 4);
            return;
        }
        int id;
        if (o == THREAD_VARS) {
            id = -1 - (s >> 4);
            s &= 15;
        } else if (o == GLOBAL_VARS) {
            id = -1000;
        } else {
            id = o == null ? 0 : idOf(o);
        }
        out.append(id);
        if (k != ACQUIRE && k != RELEASE) {
            out.append('.').append(s);
        }
    }
}
