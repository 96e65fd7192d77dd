package racelens.rt;

import java.util.Random;

/**
 * Random schedules for the portfolio of issue 22 (item 5), decided online:
 *
 * <ul>
 *   <li>a <b>random walk</b> ({@code walk=<seed>}): at each decision point, an enabled thread
 *       chosen uniformly;
 *   <li><b>partial-order sampling</b> ({@code pos=<seed>}; Yuan, Yang and Gu, CAV 2018,
 *       Algorithm 2): every pending event has a random priority and the enabled thread whose
 *       event has the highest runs; once an event has run, the next event of its thread and the
 *       pending events that race with it (same object, not both reads) get new random
 *       priorities. Unlike a random walk, it does not favour schedules that merely reorder
 *       independent events, which makes it far likelier to reach the rare orders of programs
 *       with many threads.
 * </ul>
 *
 * <p>Decisions are taken only where two or more threads are enabled, so the event "that ran"
 * is the pending event of the thread chosen at the last decision; the steps it ran alone after
 * it are not looked at (an approximation: priorities are redrawn less often than the paper's).
 */
final class Sampler extends Online {
    private final Random random;
    private final boolean pos;
    private TS last;
    private int lastSite;
    private Object lastObj;

    Sampler(long seed, boolean pos) {
        this.random = new Random(seed);
        this.pos = pos;
    }

    @Override
    void created(TS t) {
        t.priority = random.nextDouble();
    }

    @Override
    void point(TS s, int site, TS[] threads) {}

    @Override
    TS pick(TS[] threads) {
        return pos ? highestPriority(threads) : uniform(threads);
    }

    private TS uniform(TS[] threads) {
        int enabled = 0;
        for (TS t : threads) {
            if (t.enabled) {
                enabled++;
            }
        }
        int k = random.nextInt(enabled);
        for (TS t : threads) {
            if (t.enabled && k-- == 0) {
                return t;
            }
        }
        throw new IllegalStateException("no enabled thread");
    }

    private TS highestPriority(TS[] threads) {
        if (last != null) {
            last.priority = random.nextDouble(); // its next event is a new one
            if (lastObj != null) {
                for (TS t : threads) {
                    if (t != last && t.enabled && t.pendingObj == lastObj && races(lastSite, t.pendingSite)) {
                        t.priority = random.nextDouble();
                    }
                }
            }
        }
        TS best = null;
        for (TS t : threads) {
            if (t.enabled && (best == null || t.priority > best.priority)) {
                best = t;
            }
        }
        last = best;
        lastSite = best.pendingSite;
        lastObj = best.pendingObj;
        return best;
    }

    /** Two operations on one object race unless both only read it. */
    private static boolean races(int a, int b) {
        return !(isRead(a) && isRead(b));
    }

    private static boolean isRead(int site) {
        String op = site < Sites.op.length ? Sites.op[site] : null;
        return "READ".equals(op) || "AREAD".equals(op);
    }
}
