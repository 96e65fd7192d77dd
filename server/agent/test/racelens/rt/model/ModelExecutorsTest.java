package racelens.rt.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static racelens.rt.Controlled.call;
import static racelens.rt.Controlled.run;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import racelens.rt.Controlled;

/**
 * The controlled executors ({@link ModelExecutors}, {@link ModelThreadPoolExecutor}): outside an
 * execution a task runs in the caller (documented); under the scheduler tasks run on controlled
 * workers (made by a thread factory that does what the patched {@code Thread} does), their
 * steps interleave (a lost update between two tasks shows in some schedule), results come back
 * through {@code Future.get}, and {@code shutdown}/{@code awaitTermination} end the pool.
 */
class ModelExecutorsTest {
    @Test
    void uncontrolledTasksRunInTheCaller() throws Exception {
        ExecutorService pool = ModelExecutors.newFixedThreadPool(2);
        assertTrue(pool instanceof ThreadPoolExecutor, "a ThreadPoolExecutor, as the JDK's");
        Thread[] ranIn = new Thread[1];
        Future<?> f = pool.submit(() -> ranIn[0] = Thread.currentThread());
        assertTrue(f.isDone());
        assertSame(Thread.currentThread(), ranIn[0]);
        pool.shutdown();
    }

    @Test
    void tasksRunOnWorkersAndTheirResultsComeBack() {
        run(() -> {
            ExecutorService pool = ModelExecutors.newFixedThreadPool(2, Controlled.workers("w"));
            List<Callable<String>> tasks = List.of(() -> Thread.currentThread().getName(), () -> "b", () -> "c");
            List<Future<String>> fs = call(pool, "invokeAll", () -> pool.invokeAll(tasks));
            assertTrue(fs.get(0).get().startsWith("w"), "ran on a worker: " + fs.get(0).get());
            assertEquals("b", fs.get(1).get());
            assertEquals("c", call(fs.get(2), "get", fs.get(2)::get));
            assertEquals(2, ((ThreadPoolExecutor) pool).getPoolSize(), "the core size, no more");
            Controlled.invoke(pool, "shutdown", pool::shutdown);
            assertThrows(RejectedExecutionException.class, () -> pool.execute(() -> {}));
            assertTrue((boolean) call(pool, "awaitTermination", () -> pool.awaitTermination(1, TimeUnit.SECONDS)));
            assertTrue(pool.isTerminated());
            assertEquals(3, ((ThreadPoolExecutor) pool).getCompletedTaskCount());
        }).assertPass();
    }

    @Test
    void twoTasksInterleaveOnTwoWorkers() {
        // too many schedules to run them all (three threads): search until an update is lost
        Controlled.Explored e = Controlled.search(1000, out -> {
            ExecutorService pool = ModelExecutors.newFixedThreadPool(2, Controlled.workers("w"));
            int[] shared = {0};
            Runnable inc = () -> {
                Controlled.point(shared);
                int v = shared[0];
                Controlled.point(shared);
                shared[0] = v + 1;
            };
            Future<?> a = call(pool, "submit", () -> pool.submit(inc));
            Future<?> b = call(pool, "submit", () -> pool.submit(inc));
            call(a, "get", a::get);
            call(b, "get", b::get);
            Controlled.invoke(pool, "shutdown", pool::shutdown);
            out.accept(shared[0]);
        }, v -> (int) v == 1);
        assertTrue(e.all("pass"), e.results.toString());
        assertEquals(Set.of(1, 2), new TreeSet<>(e.values), "both results, the lost update last");
    }
}
