package racelens.rt;

/**
 * The sleep set of a schedule of the exhaustive search (RUN option {@code sleep}; PROTOCOL.md,
 * "Effects"): threads whose next step is known to lead only to schedules explored elsewhere, each
 * with that step's effects. A sleeping thread wakes when a step from the branch's own step on has
 * an effect that conflicts with its next step's. Beyond its choices the run prefers awake
 * threads, so that it does not run into a sleeping one (the controller would throw the rest of
 * the run away and ask for another): the same schedules, fewer runs.
 *
 * <p>The controller decides what is covered (it replays the sleep set on the trace); this is
 * only the default rule's preference. Objects are compared by their birth names ({@link Trace});
 * an object without one (JDK-born) matches any object on the same slot, on either side.
 *
 * <p>State: the entries (thread, kind, object name, slot), the threads still asleep, the step
 * from which effects count, and how many recorded effects were looked at.
 */
final class Sleep {
    private Sleep() {}

    private static int n;
    private static int[] tid = new int[16];
    private static byte[] kind = new byte[16];
    private static int[] name = new int[16];
    private static int[] slot = new int[16];
    /** Bit {@code t}: thread {@code t} is asleep; any number of threads. */
    private static final java.util.BitSet asleep = new java.util.BitSet();
    private static int fromStep;
    private static int seen;

    /** Object names below this are numbered in order of first use, not by birth. */
    static final int BORN = 1 << 20;
    /** Stands for an object without a birth name: matches any object. */
    private static final int ANY = Integer.MIN_VALUE;

    /**
     * {@code <step>/<thread>:<codes>/...} (codes as on the X line), or null for none: the sleep
     * set of the schedule from step {@code step} on.
     */
    static void set(String spec) {
        n = 0;
        asleep.clear();
        seen = 0;
        if (spec == null || spec.isEmpty()) {
            return;
        }
        String[] parts = spec.split("/");
        fromStep = Integer.parseInt(parts[0]);
        for (int p = 1; p < parts.length; p++) {
            int colon = parts[p].indexOf(':');
            int t = Integer.parseInt(parts[p].substring(0, colon));
            if (t < 0) {
                throw new IllegalArgumentException("sleep: thread " + t);
            }
            asleep.set(t);
            String codes = parts[p].substring(colon + 1);
            int i = 0;
            while (i < codes.length()) {
                byte k = (byte) codes.charAt(i++);
                int start = i;
                while (i < codes.length() && !Character.isLetter(codes.charAt(i))) {
                    i++;
                }
                add(t, k, codes.substring(start, i));
            }
        }
    }

    private static void add(int t, byte k, String rest) {
        int o = 0;
        int s = 0;
        if (k == Trace.START || k == Trace.JOIN) {
            o = -1 - Integer.parseInt(rest); // the thread's life variable
            s = Trace.LIFE;
        } else if (k == Trace.READ || k == Trace.WRITE || k == Trace.ADD || k == Trace.ACQUIRE || k == Trace.RELEASE) {
            int dot = rest.indexOf('.');
            o = Integer.parseInt(dot < 0 ? rest : rest.substring(0, dot));
            s = dot < 0 ? Trace.LOCK : Integer.parseInt(rest.substring(dot + 1));
            if (o > 0 && o < BORN) {
                o = ANY;
            }
        } else if (k != Trace.GLOBAL) {
            throw new IllegalArgumentException("sleep: effect " + (char) k);
        }
        if (n == tid.length) {
            tid = java.util.Arrays.copyOf(tid, n * 2);
            kind = java.util.Arrays.copyOf(kind, n * 2);
            name = java.util.Arrays.copyOf(name, n * 2);
            slot = java.util.Arrays.copyOf(slot, n * 2);
        }
        tid[n] = t;
        kind[n] = k;
        name[n] = o;
        slot[n] = s;
        n++;
    }

    static boolean any() {
        return !asleep.isEmpty();
    }

    /** Whether thread {@code t} may run as far as the sleep set goes (wakes threads first). */
    static boolean awake(TS t) {
        if (asleep.isEmpty()) {
            return true;
        }
        catchUp();
        return !asleep.get(t.id);
    }

    /**
     * The default rule's choice {@code c} among the enabled {@code threads}, unless it is asleep
     * and another enabled thread is awake: then the first such one.
     */
    static TS prefer(TS c, TS[] threads) {
        if (awake(c)) {
            return c;
        }
        for (TS t : threads) {
            if (t.enabled && awake(t)) {
                return t;
            }
        }
        return c;
    }

    /** Wakes the threads the effects recorded since the last look conflict with. */
    private static void catchUp() {
        int end = Trace.count;
        for (int e = seen; e < end && !asleep.isEmpty(); e++) {
            if (Trace.step[e] < fromStep) {
                continue;
            }
            byte k = Trace.kind[e];
            if (k == Trace.RELEASE) {
                continue;
            }
            int o = 0;
            int s = 0;
            if (k == Trace.START || k == Trace.JOIN) {
                o = -1 - (Trace.slot[e] >> 4);
                s = Trace.LIFE;
            } else if (k != Trace.GLOBAL) {
                o = Trace.nameNow(Trace.obj[e], Trace.slot[e]);
                s = Trace.slotNow(Trace.obj[e], Trace.slot[e]);
                if (o > 0 && o < BORN) {
                    o = ANY;
                }
            }
            for (int i = 0; i < n; i++) {
                if (asleep.get(tid[i]) && conflict(k, o, s, kind[i], name[i], slot[i])) {
                    asleep.clear(tid[i]);
                }
            }
        }
        seen = Math.max(seen, end);
    }

    /** The controller's conflict relation (dpor::conflict), with {@link #ANY} matching any object. */
    private static boolean conflict(byte k1, int o1, int s1, byte k2, int o2, int s2) {
        if (k1 == Trace.RELEASE || k2 == Trace.RELEASE) {
            return false;
        }
        if (k1 == Trace.GLOBAL || k2 == Trace.GLOBAL) {
            return true;
        }
        if (k1 == Trace.ADD && k2 == Trace.ADD) {
            return false; // two additions to a counter commute
        }
        boolean sameVar = s1 == s2 && (o1 == o2 || o1 == ANY || o2 == ANY);
        return sameVar && (writes(k1) || writes(k2));
    }

    private static boolean writes(byte k) {
        return k == Trace.WRITE || k == Trace.ADD || k == Trace.ACQUIRE || k == Trace.START;
    }
}
