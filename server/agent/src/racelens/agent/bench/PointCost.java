package racelens.agent.bench;

import racelens.rt.Rt;

/**
 * Measures what a scheduling point costs when it does not switch threads: one controlled thread
 * (thread 0 of an execution) calls {@code Rt.point} in a loop; the same loop without the call is
 * the baseline. Run it with the launch flags of PROTOCOL.md (C1 only) to get the number that
 * matters: {@code java -XX:TieredStopAtLevel=1 -cp racelens-agent.jar racelens.agent.bench.PointCost}.
 * No agent is needed (nothing is instrumented).
 */
public final class PointCost {
    private PointCost() {}

    static volatile long sink;
    static long field;

    static long baseline(int n) {
        long acc = 0;
        for (int i = 0; i < n; i++) {
            acc += field + i;
        }
        return acc;
    }

    static long points(int n) {
        long acc = 0;
        for (int i = 0; i < n; i++) {
            Rt.point(7);
            acc += field + i;
        }
        return acc;
    }

    static long objectPoints(int n, Object o) {
        long acc = 0;
        for (int i = 0; i < n; i++) {
            Rt.point(o, 7);
            acc += field + i;
        }
        return acc;
    }

    static long calls(int n) {
        long acc = 0;
        for (int i = 0; i < n; i++) {
            Rt.callBegin(7);
            acc += field + i;
            Rt.callEnd();
        }
        return acc;
    }

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 5_000_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 12;
        // best of several rounds: on a shared machine a round may be preempted by the OS
        double[] best = {Double.MAX_VALUE, Double.MAX_VALUE, Double.MAX_VALUE, Double.MAX_VALUE};
        Thread t0 = new Thread(() -> {
            Object o = new Object();
            for (int round = 0; round < rounds; round++) {
                long a = System.nanoTime();
                sink = baseline(n);
                long b = System.nanoTime();
                sink = points(n);
                long c = System.nanoTime();
                sink = objectPoints(n, o);
                long d = System.nanoTime();
                sink = calls(n);
                long e = System.nanoTime();
                if (round >= 2) { // the first rounds compile the code
                    best[0] = Math.min(best[0], (b - a) / (double) n);
                    best[1] = Math.min(best[1], (c - b) / (double) n);
                    best[2] = Math.min(best[2], (d - c) / (double) n);
                    best[3] = Math.min(best[3], (e - d) / (double) n);
                }
            }
        }, "main");
        Rt.begin(t0, Integer.MAX_VALUE, false, new int[0]);
        t0.start();
        t0.join();
        System.out.printf("racelens PointCost (best of %d rounds of %d iterations, %s):%n", rounds - 2, n,
                System.getProperty("java.vm.name"));
        System.out.printf("  loop body alone            %6.2f ns%n", best[0]);
        System.out.printf("  + Rt.point(site)           %6.2f ns  -> %.2f ns per non-switching point%n", best[1], best[1] - best[0]);
        System.out.printf("  + Rt.point(object, site)   %6.2f ns  -> %.2f ns%n", best[2], best[2] - best[0]);
        System.out.printf("  + Rt.callBegin/callEnd     %6.2f ns  -> %.2f ns per atomic library call bracket%n", best[3], best[3] - best[0]);
    }
}
