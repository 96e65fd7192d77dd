package racelens.rt;

import java.util.Random;

/**
 * Logical time and randomness, so that an execution does the same thing every time it follows
 * the same schedule: {@code System.nanoTime}/{@code currentTimeMillis} read a clock that starts
 * at 0 in every execution and advances 1 µs per read by the running thread (and jumps to a
 * deadline when a timeout fires, see {@link Sched#pickNext}); {@code new Random()} and
 * {@code Math.random()} get seeds fixed per execution and creation order. ({@code System.exit}
 * is not here but in {@link Sched}: it ends the execution.)
 *
 * <p>State: the clock, the count of seeds handed out, the generator of {@code Math.random()};
 * reset by {@link #reset} for every execution.
 */
final class Clock {
    private Clock() {}

    static final long BASE_NANOS = 1_000_000_000_000L;
    static final long BASE_MILLIS = 1_700_000_000_000L;

    /** Logical time in nanoseconds since the start of the execution. */
    static long now;
    static int randoms;
    static Random mathRandom;

    static void reset() {
        now = 0;
        randoms = 0;
        mathRandom = null;
    }

    static long nanoTime() {
        if (Sched.current.thread == Thread.currentThread()) {
            now += 1000;
            if (Trace.on) {
                Trace.global(Trace.CLOCK); // every read advances the clock: reads conflict
            }
        }
        return BASE_NANOS + now;
    }

    static long currentTimeMillis() {
        if (Sched.current.thread == Thread.currentThread()) {
            now += 1000;
            if (Trace.on) {
                Trace.global(Trace.CLOCK);
            }
        }
        return BASE_MILLIS + now / 1_000_000L;
    }

    static long seed() {
        boolean mine = Sched.current.thread == Thread.currentThread();
        if (mine && Trace.on) {
            Trace.global(Trace.RANDOMS); // seeds go in creation order
        }
        long n = mine ? ++randoms : 0;
        long z = 0x9E3779B97F4A7C15L * (n + 1);
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        return z ^ (z >>> 31);
    }

    static double mathRandom() {
        if (Sched.current.thread != Thread.currentThread()) {
            return Math.random();
        }
        if (mathRandom == null) {
            mathRandom = new Random(42);
        }
        if (Trace.on) {
            Trace.global(Trace.MATH_RANDOM);
        }
        return mathRandom.nextDouble();
    }
}
