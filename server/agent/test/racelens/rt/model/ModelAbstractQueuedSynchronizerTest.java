package racelens.rt.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static racelens.rt.Controlled.run;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import racelens.rt.Controlled;
import racelens.rt.Scenarios;

/**
 * {@link ModelAbstractQueuedSynchronizer}, the superclass an application synchronizer gets
 * instead of the JDK's: a mutex written the JDK's way ({@code tryAcquire}/{@code tryRelease} on
 * the state) acquired through {@link FinalCalls} (where the instrumenter sends the JDK's final
 * {@code acquire}/{@code release}) excludes in every schedule, queues a contender (longest
 * first), and outside an execution is the JDK's synchronizer.
 */
class ModelAbstractQueuedSynchronizerTest {
    /** A non-reentrant mutex, as the JDK's documentation of the synchronizer writes one. */
    static final class Mutex extends ModelAbstractQueuedSynchronizer {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean tryAcquire(int arg) {
            if (compareAndSetState(0, 1)) {
                setExclusiveOwnerThread(Thread.currentThread());
                return true;
            }
            return false;
        }

        @Override
        protected boolean tryRelease(int arg) {
            setExclusiveOwnerThread(null);
            setState(0);
            return true;
        }

        @Override
        protected boolean isHeldExclusively() {
            return getExclusiveOwnerThread() == Thread.currentThread();
        }
    }

    @Test
    void uncontrolledItIsTheJdksSynchronizer() throws Exception {
        Mutex m = new Mutex();
        FinalCalls.acquire(m, 1);
        assertTrue(m.isHeldExclusively());
        boolean[] other = {true};
        Thread t = new Thread(() -> other[0] = m.tryAcquire(1));
        t.start();
        t.join(10_000);
        assertFalse(other[0]);
        assertTrue(FinalCalls.release(m, 1));
        assertFalse(m.isHeldExclusively());
    }

    @Test
    void theMutexExcludesInEverySchedule() {
        Scenarios.assertExclusive(Scenarios.same(() -> {
            Mutex m = new Mutex();
            return new Scenarios.Guard(() -> FinalCalls.acquire(m, 1), () -> FinalCalls.release(m, 1));
        }));
    }

    @Test
    void contendersQueueLongestFirst() {
        List<String> order = new ArrayList<>();
        run(() -> {
            Mutex m = new Mutex();
            FinalCalls.acquire(m, 1);
            List<Thread> ts = Scenarios.startInTurn(List.of("A", "B"), name -> () -> {
                FinalCalls.acquire(m, 1);
                order.add(name);
                FinalCalls.release(m, 1);
            }, started -> FinalCalls.getQueueLength(m) == started.size());
            assertTrue(FinalCalls.hasQueuedThreads(m));
            assertSame(ts.get(0), FinalCalls.getFirstQueuedThread(m));
            assertTrue(FinalCalls.isQueued(m, ts.get(1)));
            FinalCalls.release(m, 1);
            Controlled.joinAll(ts);
            assertFalse(FinalCalls.hasQueuedThreads(m));
        }).assertPass();
        assertEquals(List.of("A", "B"), order);
    }
}
