package racelens.rt;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * {@code java.time}'s clocks on racelens's logical clock: what {@code Clock.systemUTC()},
 * {@code Clock.systemDefaultZone()} and the no-argument {@code now()} of {@code Instant},
 * {@code LocalDateTime} and the other date-time classes read in project and library code
 * (the instrumentation replaces those calls). Without it, a pool that times its waits with
 * {@code Instant.now()} reads the wall clock while its sleeps run on the logical one, and the
 * same schedule behaves differently from one run to the next.
 */
final class LogicalClock extends Clock {
    private final ZoneId zone;

    LogicalClock(ZoneId zone) {
        this.zone = zone;
    }

    static final LogicalClock UTC = new LogicalClock(ZoneOffset.UTC);

    /** The logical clock now, as an instant (it advances as {@code System.currentTimeMillis} does). */
    static Instant now() {
        long millis = Clock_.currentTimeMillis();
        return Instant.ofEpochMilli(millis).plusNanos(racelens.rt.Clock.now % 1_000_000L);
    }

    @Override
    public ZoneId getZone() {
        return zone;
    }

    @Override
    public Clock withZone(ZoneId z) {
        return z.equals(zone) ? this : new LogicalClock(z);
    }

    @Override
    public Instant instant() {
        return now();
    }

    @Override
    public long millis() {
        return Clock_.currentTimeMillis();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof LogicalClock && ((LogicalClock) o).zone.equals(zone);
    }

    @Override
    public int hashCode() {
        return zone.hashCode() + 1;
    }

    @Override
    public String toString() {
        return "LogicalClock[" + zone + "]";
    }

    /** racelens's own clock class, named apart from {@code java.time.Clock}. */
    private static final class Clock_ {
        static long currentTimeMillis() {
            return racelens.rt.Clock.currentTimeMillis();
        }
    }
}
