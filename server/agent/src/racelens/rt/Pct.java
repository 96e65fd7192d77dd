package racelens.rt;

import java.util.Arrays;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;

/**
 * The PCT scheduler (Burckhardt et al., ASPLOS 2010) for one execution: random distinct
 * priorities at thread creation, {@code depth - 1} change points among the first
 * {@code horizon} scheduling points at the given sites; the highest-priority enabled thread runs.
 * Parsed from {@code pct=<seed>/<depth>/<horizon>/<sites>}.
 */
public final class Pct extends Online {
    private final Random random;
    private final long[] changePoints;
    private final Set<String> sites;
    private byte[] match = new byte[0];
    private long matched;
    private int nextChange;
    private double lowest;

    private Pct(long seed, int depth, long horizon, Set<String> sites) {
        this.random = new Random(seed);
        this.sites = sites;
        int k = Math.max(0, depth - 1);
        long[] cp = new long[k];
        Set<Long> used = new HashSet<>();
        for (int i = 0; i < k && horizon > 0; i++) {
            long v;
            int tries = 0;
            do {
                v = (long) (random.nextDouble() * horizon);
            } while (!used.add(v) && ++tries < 100);
            cp[i] = v;
        }
        Arrays.sort(cp);
        this.changePoints = cp;
        this.lowest = 0;
    }

    /** Parses the option value after {@code pct=}; throws IllegalArgumentException. */
    public static Pct parse(String v) {
        String[] f = v.split("/", 4);
        if (f.length != 4) {
            throw new IllegalArgumentException("pct=<seed>/<depth>/<horizon>/<sites>");
        }
        Set<String> sites = null;
        if (!f[3].equals("*")) {
            sites = new HashSet<>(Arrays.asList(f[3].split("\\+")));
        }
        return new Pct(Long.parseLong(f[0]), Integer.parseInt(f[1]), Long.parseLong(f[2]), sites);
    }

    @Override
    void created(TS t) {
        // distinct with probability 1; ties broken by thread number in pick()
        t.priority = 1.0 + random.nextDouble();
    }

    private boolean matches(int site) {
        if (sites == null) {
            return true;
        }
        if (site >= match.length) {
            match = Arrays.copyOf(match, Math.max(site + 1, match.length * 2));
        }
        if (match[site] == 0) {
            String key = Sites.cls[site] + ":" + Sites.line[site];
            match[site] = (byte) (sites.contains(key) ? 1 : 2);
        }
        return match[site] == 1;
    }

    /** A scheduling point of the running thread {@code s}: maybe a change point. */
    @Override
    void point(TS s, int site, TS[] threads) {
        if (nextChange >= changePoints.length || !matches(site)) {
            return;
        }
        long index = matched++;
        while (nextChange < changePoints.length && changePoints[nextChange] == index) {
            nextChange++;
            lowest -= 1.0;
            s.priority = lowest;
        }
    }

    /** The highest-priority enabled thread. */
    @Override
    TS pick(TS[] threads) {
        TS best = null;
        for (TS t : threads) {
            if (t.enabled && (best == null || t.priority > best.priority)) {
                best = t;
            }
        }
        return best;
    }
}
