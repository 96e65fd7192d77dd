package racelens.rt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import racelens.rt.model.ModelCountDownLatch;

/**
 * Sites ({@link Sites}) and what the trace derives from them ({@link Pure}): a registered site
 * gets the next number, a SITE line once per JVM, its kind and callee; a call only reads its
 * receiver when racelens knows the method reads (known JDK classes, a model's own answer), and
 * counter additions whose result is dropped commute. Wrong answers here make the reduction
 * skip schedules, so the unknown case must stay "conflicts".
 */
class SitesTest {
    @Test
    void aSiteIsNumberedDescribedAndAnnouncedOnce() {
        int id = Sites.register("app.Account", "deposit", 42, "CALL", "java.util.HashMap.put");
        assertEquals(id + 1, Sites.register("app.Account", "deposit", 43, "READ", "app.Account.balance"));
        assertEquals("app.Account.deposit:42 CALL java.util.HashMap.put", Sites.describe(id));
        assertEquals("thread start", Sites.describe(0));
        assertEquals("put", Sites.callee(id));
        assertEquals(Sites.K_CALL, Sites.kind(id));
        assertEquals(Sites.K_READ, Sites.kind(id + 1));
        StringBuilder out = new StringBuilder();
        Sites.announce(id, out);
        Sites.announce(id, out);
        assertEquals("SITE " + id + " app.Account deposit 42 CALL java.util.HashMap.put\n", out.toString());
    }

    @Test
    void emptyTargetsBecomeADash() {
        int id = Sites.register("C", "m", 1, "START", "");
        assertTrue(Sites.describe(id).endsWith("START -"), Sites.describe(id));
    }

    private static int call(String method) {
        return Sites.register("C", "m", 1, "CALL", "java.util.X." + method);
    }

    @Test
    void knownReadersOnlyReadTheirReceiver() {
        assertTrue(Pure.reads(new ConcurrentHashMap<>(), call("get")));
        assertTrue(Pure.reads(new ArrayList<>(), call("size")));
        assertFalse(Pure.reads(new ConcurrentHashMap<>(), call("put")), "a writer");
        assertFalse(Pure.reads(new java.util.LinkedHashMap<>(), call("get")), "access order may write on get");
        assertFalse(Pure.reads(new ArrayList<Object>() {}, call("size")), "a subclass may override it");
        Readers model = name -> name.equals("peek"); // a model answers for its own methods
        assertTrue(Pure.reads(model, call("peek")));
        assertFalse(Pure.reads(model, call("poll")));
    }

    @Test
    void droppedCounterAdditionsCommute() {
        int used = call("incrementAndGet");
        int dropped = call("incrementAndGet");
        Sites.resultUnused(dropped);
        assertTrue(Pure.commutes(new AtomicInteger(), dropped));
        assertFalse(Pure.commutes(new AtomicInteger(), used), "the result tells who came first");
        int countDown = call("countDown");
        Sites.resultUnused(countDown);
        assertTrue(Pure.commutes(new ModelCountDownLatch(2), countDown));
        int add = call("add");
        Sites.resultUnused(add);
        assertFalse(Pure.commutes(new java.util.concurrent.atomic.DoubleAdder(), add), "floating-point sums depend on order");
    }

    @Test
    void onlyListedStaticsTouchNoState() {
        assertTrue(Pure.isStatic(Sites.register("C", "m", 1, "CALL", "java.util.List.of")));
        assertFalse(Pure.isStatic(Sites.register("C", "m", 1, "CALL", "java.util.Collections.shuffle")));
    }
}
