package racelens.rt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Logical time and randomness ({@link Clock}, {@link LogicalClock}): inside an execution every
 * read of the clock advances it by 1 µs from the same start, so that the same schedule reads the
 * same times; seeds and {@code Math.random} repeat per execution; outside an execution the clock
 * does not move and {@code Math.random} is the JDK's. {@code java.time}'s clocks read the same
 * logical time.
 */
class ClockTest {
    /** What thread 0 of one execution reads. */
    private static List<Object> readings() {
        List<Object> out = new ArrayList<>();
        Controlled.run(() -> {
            out.add(Rt.nanoTime());
            out.add(Rt.nanoTime());
            out.add(Rt.currentTimeMillis());
            out.add(Rt.seed());
            out.add(Rt.seed());
            out.add(Rt.mathRandom());
            out.add(Rt.instantNow());
        }).assertPass();
        return out;
    }

    @Test
    void everyExecutionReadsTheSameTimesAndSeeds() {
        List<Object> a = readings();
        assertEquals(a, readings());
        long n0 = (long) a.get(0);
        assertEquals(Clock.BASE_NANOS + 1000, n0, "starts at the base, one microsecond per read");
        assertEquals(n0 + 1000, (long) a.get(1));
        assertEquals(Clock.BASE_MILLIS, (long) a.get(2), "3 µs are still the base millisecond");
        assertNotEquals(a.get(3), a.get(4), "seeds differ by creation order");
        Instant now = (Instant) a.get(6);
        assertEquals(Clock.BASE_MILLIS, now.toEpochMilli());
    }

    @Test
    void outsideAnExecutionTheClockStands() {
        long before = Rt.nanoTime();
        assertEquals(before, Rt.nanoTime(), "no controlled thread: the logical clock does not move");
        assertEquals(0L, Clock.seed() ^ Clock.seed(), "the same seed outside executions");
        assertTrue(Rt.mathRandom() >= 0 && Rt.mathRandom() < 1);
    }

    @Test
    void aTimeoutMovesTheClockToItsDeadline() {
        Controlled.run(() -> {
            long t0 = Rt.nanoTime();
            Rt.sleep(250, Controlled.site("SLEEP", "-"));
            long t1 = Rt.nanoTime();
            assertTrue(t1 - t0 >= 250_000_000L && t1 - t0 < 251_000_000L, "slept 250 ms of logical time: " + (t1 - t0));
        }).assertPass();
    }

    @Test
    void javaTimeClocksReadTheLogicalClock() {
        java.time.Clock utc = Rt.systemUTC();
        assertSame(LogicalClock.UTC, utc);
        assertEquals(ZoneOffset.UTC, utc.getZone());
        assertSame(utc, utc.withZone(ZoneOffset.UTC));
        java.time.Clock paris = utc.withZone(ZoneId.of("Europe/Paris"));
        assertEquals(paris, utc.withZone(ZoneId.of("Europe/Paris")));
        assertEquals(paris.hashCode(), utc.withZone(ZoneId.of("Europe/Paris")).hashCode());
        assertNotEquals(utc, paris);
        assertEquals("LogicalClock[Europe/Paris]", paris.toString());
        assertEquals(Rt.currentTimeMillis(), paris.millis(), "outside executions both stand still");
        assertEquals(paris.millis(), paris.instant().toEpochMilli());
    }
}
