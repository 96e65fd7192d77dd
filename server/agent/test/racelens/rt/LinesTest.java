package racelens.rt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * Protocol text ({@link Lines}): escaping keeps one field on one line, and the response of an
 * execution has the SITE, THREAD and D lines PROTOCOL.md describes (thread masks in hex, the
 * pending sites of the enabled threads), with full mode's E lines.
 */
class LinesTest {
    @Test
    void escapingKeepsAFieldOnOneLine() {
        assertEquals("plain", Lines.esc("plain"));
        assertEquals("a\\nb", Lines.esc("a\nb"));
        assertEquals("a\\\\b", Lines.esc("a\\b"));
        assertEquals("ab", Lines.esc("a\r\nb").replace("\\n", ""));
        assertEquals("", Lines.esc(null));
    }

    @Test
    void aResponseHasSiteThreadAndDecisionLines() {
        Controlled.Result r = Controlled.run(new int[] {1}, () -> {
            Thread t = Controlled.start("worker\nwith newline", Controlled::point);
            Controlled.point();
            Controlled.join(t);
        }).assertPass();
        assertTrue(r.response.contains("THREAD 0 main\nTHREAD 1 worker\\nwith newline\n"), r.response);
        // decision 0, at thread 0's point: thread 1 (at BEGIN, site 0) chosen, both enabled,
        // thread 0 was running; then the pending site of each enabled thread
        int point = Controlled.site("CALL", "test.Point.step");
        assertEquals("D 1 1 0 3 - 0 0:" + point + ",1:0", r.lines("D ").get(0));
    }

    @Test
    void fullModeWritesAnELinePerPoint() {
        Thread t0 = new Thread(null, () -> {
            try {
                Controlled.point();
                Controlled.point();
            } finally {
                Rt.threadExit(Thread.currentThread());
            }
        }, "main", 0);
        Rt.begin(t0, 100, true, new int[0]);
        t0.start();
        assertTrue(Rt.awaitEnd(System.nanoTime() + 20_000_000_000L));
        assertTrue(Rt.teardown(5000));
        StringBuilder sb = new StringBuilder();
        Rt.response(sb);
        long es = sb.toString().lines().filter(l -> l.startsWith("E ")).count();
        assertEquals(2, es, sb.toString());
        assertTrue(sb.toString().contains("B 2 0 finished"), sb.toString());
    }

    @Test
    void masksAreHexWithThreadZeroLowest() {
        TS[] saved = Sched.threads;
        try {
            TS[] ts = new TS[6];
            for (int i = 0; i < ts.length; i++) {
                ts[i] = new TS(null, i, 0);
                ts[i].enabled = i == 0 || i == 5;
            }
            Sched.threads = ts;
            assertEquals("21", Lines.enabledMask());
            ts[5].enabled = false;
            assertEquals("1", Lines.enabledMask(), "no leading zero digits");
        } finally {
            Sched.threads = saved;
        }
    }
}
