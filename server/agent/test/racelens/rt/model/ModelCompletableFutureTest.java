package racelens.rt.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static racelens.rt.Controlled.call;
import static racelens.rt.Controlled.run;
import static racelens.rt.Controlled.start;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import racelens.rt.Controlled;
import racelens.rt.Rt;
import racelens.rt.Scenarios;

/**
 * {@link ModelCompletableFuture}: dependent stages are model futures too, composition gives the
 * JDK's results (values and exceptions), and under the scheduler {@code join}/{@code get} wait
 * in the model until another thread completes the future (in every schedule), a future nobody
 * completes is a deadlock, and a timed {@code get} times out in logical time.
 */
class ModelCompletableFutureTest {
    @Test
    void uncontrolledCompositionIsTheJdks() throws Exception {
        ModelCompletableFuture<Integer> a = new ModelCompletableFuture<>();
        CompletableFuture<Integer> b = a.thenApply(x -> x * 10);
        assertInstanceOf(ModelCompletableFuture.class, b, "dependents are model futures");
        assertTrue(a.toString().startsWith("java.util.concurrent.CompletableFuture@"), a.toString());
        assertTrue(a.complete(4));
        assertEquals(40, b.get());
        ModelCompletableFuture<Integer> c = new ModelCompletableFuture<>();
        c.completeExceptionally(new IllegalStateException("no"));
        CompletionException e = assertThrows(CompletionException.class, () -> c.thenApply(x -> x + 1).join());
        assertInstanceOf(IllegalStateException.class, e.getCause());
        assertEquals(-1, (int) c.exceptionally(t -> -1).get());
    }

    @Test
    void theCombinedResultWaitsForBothInEverySchedule() {
        Controlled.Explored e = Controlled.explore(1000, out -> {
            ModelCompletableFuture<Integer> a = new ModelCompletableFuture<>();
            ModelCompletableFuture<Integer> b = new ModelCompletableFuture<>();
            CompletableFuture<Integer> sum = a.thenCombine(b.thenApply(x -> x * 100), Integer::sum);
            start("A", () -> call(a, "complete", () -> a.complete(1)));
            start("B", () -> call(b, "complete", () -> b.complete(2)));
            out.accept(call(sum, "join", sum::join));
        });
        assertTrue(e.all("pass"), e.results.toString());
        assertTrue(e.results.size() > 1);
        assertTrue(e.values.stream().allMatch(v -> (int) v == 201), e.values.toString());
    }

    @Test
    void anExceptionReachesTheWaiter() {
        run(() -> {
            ModelCompletableFuture<Integer> a = new ModelCompletableFuture<>();
            CompletableFuture<Integer> next = a.thenApply(x -> x + 1);
            start("T1", () -> call(a, "completeExceptionally", () -> a.completeExceptionally(new IllegalStateException("x"))));
            ExecutionException ex = assertThrows(ExecutionException.class, () -> call(next, "get", next::get));
            assertInstanceOf(IllegalStateException.class, ex.getCause());
        }).assertPass();
    }

    @Test
    void aFutureNobodyCompletesIsADeadlock() {
        Scenarios.assertDeadlock("waiting for", () -> {
            ModelCompletableFuture<Integer> a = new ModelCompletableFuture<>();
            call(a, "join", a::join);
        });
    }

    @Test
    void aTimedGetTimesOutInLogicalTime() {
        run(() -> {
            ModelCompletableFuture<Integer> a = new ModelCompletableFuture<>();
            assertThrows(TimeoutException.class, () -> call(a, "get", () -> a.get(4, TimeUnit.SECONDS)));
            assertTrue(Rt.clock() >= TimeUnit.SECONDS.toNanos(4));
            a.obtrudeValue(9);
            assertEquals(9, (int) call(a, "get", a::get));
        }).assertPass();
    }
}
