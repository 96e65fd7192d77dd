package racelens.rt.model;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CountedCompleter;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ForkJoinTask;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import racelens.rt.Rt;
import racelens.rt.TS;

/**
 * The model of {@code ForkJoinTask}'s scheduling operations, whose JDK versions are final (so no
 * model subclass can replace them): the instrumenter replaces the calls of application code to
 * {@code fork}, {@code join}, {@code invoke}, {@code get}, {@code quietlyJoin},
 * {@code quietlyInvoke} and {@code ForkJoinTask.invokeAll} by these static methods (the call's
 * site pushed last), and {@code Future.get} too, since a fork/join task is often held as a
 * {@code Future}.
 *
 * <p>{@code fork} queues the task on the pool of the calling worker ({@link ModelForkJoinPool}),
 * else on the common pool's model; a worker runs it with the JDK's own {@code doExec}, so the
 * task's status, result and exception are the JDK's. {@code join}/{@code get} run the task in
 * the joining thread when no worker has taken it yet and the JDK's would help there (a worker
 * with its own pool's tasks, a thread outside the pools with the common pool's), else wait in
 * the model until it is done; {@code invoke} runs it in the caller. Each operation is one
 * scheduling point on the task (it writes the task, for the trace), and a task's completion
 * touches it and its completers.
 *
 * <p>State: per execution, the queued tasks no thread has taken yet and the tasks being run.
 */
public final class ModelForkJoinTasks {
    private ModelForkJoinTasks() {}

    private static final MethodHandle DO_EXEC;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.privateLookupIn(ForkJoinTask.class, MethodHandles.lookup());
            DO_EXEC = l.findVirtual(ForkJoinTask.class, "doExec", MethodType.methodType(int.class));
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("racelens cannot run a ForkJoinTask (the JVM needs "
                    + "--add-opens java.base/java.util.concurrent=ALL-UNNAMED): " + e, e);
        }
    }

    /** A queued task; {@code taken} once a worker or a joining thread runs it. */
    static final class Job implements Runnable {
        final ForkJoinTask<?> task;
        final ModelForkJoinPool pool;
        boolean taken;

        Job(ForkJoinTask<?> task, ModelForkJoinPool pool) {
            this.task = task;
            this.pool = pool;
        }

        @Override
        public void run() { // on a pool worker
            Rt.touch(task); // a joining thread may have taken it meanwhile
            if (taken) {
                return;
            }
            taken = true;
            queued.remove(this);
            exec(task);
        }
    }

    private static int epoch = -1;
    /** Jobs no thread has taken, oldest first. */
    private static final ArrayList<Job> queued = new ArrayList<>();
    /** Tasks being run by some thread (taken and not done). */
    private static final ArrayList<ForkJoinTask<?>> running = new ArrayList<>();

    private static void fresh() {
        if (epoch != Rt.epoch) {
            epoch = Rt.epoch;
            queued.clear();
            running.clear();
        }
    }

    /** A job for {@code task}, to queue on {@code pool}. */
    static Job job(ForkJoinTask<?> task, ModelForkJoinPool pool) {
        fresh();
        Job j = new Job(task, pool);
        queued.add(j);
        return j;
    }

    /**
     * Takes {@code task} from the queue if no thread has taken it yet and the calling thread may
     * run it, as in the JDK: a worker helps with its own pool's tasks, a thread outside the
     * pools with the common pool's (a thread outside waits for any other pool's workers).
     * True if the caller is to run it.
     */
    private static boolean claim(ForkJoinTask<?> task) {
        ModelForkJoinPool mine = currentPool();
        for (int i = queued.size() - 1; i >= 0; i--) { // joins usually go in reverse order of forks
            Job j = queued.get(i);
            if (j.task == task && j.pool == mine) {
                j.taken = true;
                queued.remove(i);
                return true;
            }
        }
        return false;
    }

    private static boolean queued(ForkJoinTask<?> task) {
        for (Job j : queued) {
            if (j.task == task) {
                return true;
            }
        }
        return false;
    }

    /** Runs {@code task} here with the JDK's {@code doExec} (which records its result or exception). */
    static void exec(ForkJoinTask<?> task) {
        running.add(task);
        try {
            int status = (int) DO_EXEC.invokeExact(task); // an exact call must take the int; the status is the task's
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException(e); // doExec records the task's own exceptions
        } finally {
            running.remove(task);
            done(task);
        }
    }

    /** A task completed (or ran): waiters on it and on the completers it may have completed re-check. */
    private static void done(ForkJoinTask<?> task) {
        Rt.touch(task);
        if (task instanceof CountedCompleter) {
            for (CountedCompleter<?> c = ((CountedCompleter<?>) task).getCompleter(); c != null; c = c.getCompleter()) {
                Rt.touch(c);
            }
        }
        Rt.changed();
    }

    /**
     * Waits for {@code task}: runs it here if it is still queued where this thread may help (or,
     * with {@code orRunFresh}, never queued), else waits in the model; a timed wait never helps
     * (as the JDK's). False when a timed wait timed out.
     */
    private static boolean await(TS s, ForkJoinTask<?> task, boolean orRunFresh, boolean interruptible, boolean timed,
            long nanos) throws InterruptedException {
        fresh();
        if (task.isDone()) {
            return true;
        }
        if (!timed && (claim(task) || orRunFresh && !running.contains(task) && !queued(task))) {
            exec(task);
            return true;
        }
        if (interruptible || timed) {
            return Models.until(s, task::isDone, task, "waiting for", timed, nanos, interruptible);
        }
        Models.untilUninterruptibly(s, task::isDone, task, "waiting for");
        return true;
    }

    /** {@link #await} for a join: untimed and uninterruptible, so it never throws. */
    private static void awaitJoin(TS s, ForkJoinTask<?> task, boolean orRunFresh) {
        try {
            await(s, task, orRunFresh, false, false, 0);
        } catch (InterruptedException e) {
            throw new AssertionError(e); // uninterruptible
        }
    }

    /**
     * {@link #await} from inside a pool method, which runs inside the call's point (its one
     * level of suppression): the task, if this thread runs it, runs with scheduling points.
     */
    static void helpJoin(TS s, ForkJoinTask<?> task) {
        int saved = s.suppress;
        s.suppress = Math.max(0, saved - 1);
        try {
            awaitJoin(s, task, false);
        } finally {
            s.suppress = saved;
        }
    }

    /** The pool a fork from the calling thread goes to: its own pool's if it is a worker, else the common pool. */
    static ModelForkJoinPool currentPool() {
        Thread t = Thread.currentThread();
        return t instanceof ModelForkJoinPool.Worker ? ((ModelForkJoinPool.Worker) t).pool : ModelForkJoinPool.commonModel();
    }

    // =====================================================================================
    // Replacements of the application's calls (the site pushed last)

    public static ForkJoinTask<?> fork(ForkJoinTask<?> task, int site) {
        TS s = Rt.op(site, task);
        if (s == null) {
            return task.fork();
        }
        currentPool().push(task);
        return task;
    }

    public static Object join(ForkJoinTask<?> task, int site) {
        TS s = Rt.op(site, task);
        if (s != null) {
            awaitJoin(s, task, false);
        }
        return task.join();
    }

    public static Object invoke(ForkJoinTask<?> task, int site) {
        TS s = Rt.op(site, task);
        if (s == null) {
            return task.invoke();
        }
        awaitJoin(s, task, true);
        return task.join();
    }

    public static void quietlyJoin(ForkJoinTask<?> task, int site) {
        TS s = Rt.op(site, task);
        if (s == null) {
            task.quietlyJoin();
            return;
        }
        awaitJoin(s, task, false);
    }

    public static void quietlyInvoke(ForkJoinTask<?> task, int site) {
        TS s = Rt.op(site, task);
        if (s == null) {
            task.quietlyInvoke();
            return;
        }
        awaitJoin(s, task, true);
    }

    public static Object get(ForkJoinTask<?> task, int site) throws InterruptedException, ExecutionException {
        TS s = Rt.op(site, task);
        if (s != null) {
            await(s, task, false, true, false, 0);
        }
        return task.get();
    }

    public static Object get(ForkJoinTask<?> task, long timeout, TimeUnit unit, int site)
            throws InterruptedException, ExecutionException, TimeoutException {
        TS s = Rt.op(site, task);
        if (s == null) {
            return task.get(timeout, unit);
        }
        if (!await(s, task, false, true, true, unit.toNanos(timeout))) {
            throw new TimeoutException();
        }
        return task.get();
    }

    /** {@code Future.get()}: the model above for fork/join tasks, else the call as an atomic JDK call. */
    public static Object futureGet(Future<?> f, int site) throws InterruptedException, ExecutionException {
        if (f instanceof ForkJoinTask) {
            return get((ForkJoinTask<?>) f, site);
        }
        Rt.callBegin(f, site);
        try {
            return f.get();
        } finally {
            Rt.callEnd();
        }
    }

    public static Object futureGet(Future<?> f, long timeout, TimeUnit unit, int site)
            throws InterruptedException, ExecutionException, TimeoutException {
        if (f instanceof ForkJoinTask) {
            return get((ForkJoinTask<?>) f, timeout, unit, site);
        }
        Rt.callBegin(f, site);
        try {
            return f.get(timeout, unit);
        } finally {
            Rt.callEnd();
        }
    }

    // ForkJoinTask.invokeAll: the JDK's order (fork all but the first, run the first here, join the others)

    public static void invokeAll(ForkJoinTask<?> t1, ForkJoinTask<?> t2, int site) {
        if (t1 == null || t2 == null) {
            throw new NullPointerException();
        }
        TS s = Rt.op(site, t1);
        if (s == null) {
            ForkJoinTask.invokeAll(t1, t2);
            return;
        }
        invokeAllModel(s, List.of(t1, t2));
    }

    public static void invokeAll(ForkJoinTask<?>[] tasks, int site) {
        TS s = Rt.op(site, tasks);
        if (s == null) {
            ForkJoinTask.invokeAll(tasks);
            return;
        }
        List<ForkJoinTask<?>> list = new ArrayList<>(tasks.length);
        for (ForkJoinTask<?> t : tasks) {
            if (t == null) {
                throw new NullPointerException();
            }
            list.add(t);
        }
        invokeAllModel(s, list);
    }

    public static Collection<?> invokeAll(Collection<?> tasks, int site) {
        TS s = Rt.op(site, tasks);
        if (s == null) {
            @SuppressWarnings("unchecked")
            Collection<ForkJoinTask<?>> ts = (Collection<ForkJoinTask<?>>) tasks;
            return ForkJoinTask.invokeAll(ts);
        }
        List<ForkJoinTask<?>> list = new ArrayList<>(tasks.size());
        for (Object t : tasks) {
            if (t == null) {
                throw new NullPointerException();
            }
            list.add((ForkJoinTask<?>) t);
        }
        invokeAllModel(s, list);
        return tasks;
    }

    private static void invokeAllModel(TS s, List<ForkJoinTask<?>> tasks) {
        if (tasks.isEmpty()) {
            return;
        }
        ModelForkJoinPool pool = currentPool();
        for (int i = tasks.size() - 1; i >= 1; i--) {
            Rt.touch(tasks.get(i));
            pool.push(tasks.get(i));
        }
        awaitJoin(s, tasks.get(0), true);
        Throwable ex = tasks.get(0).getException();
        for (int i = 1; i < tasks.size() && ex == null; i++) {
            Rt.touch(tasks.get(i));
            awaitJoin(s, tasks.get(i), false);
            ex = tasks.get(i).getException();
        }
        if (ex != null) {
            for (int i = 1; i < tasks.size(); i++) {
                tasks.get(i).cancel(false);
                done(tasks.get(i));
            }
            throw ModelForkJoinTasks.<RuntimeException>rethrow(ex); // as the JDK rethrows it, checked or not
        }
    }

    @SuppressWarnings("unchecked")
    private static <E extends Throwable> E rethrow(Throwable ex) throws E {
        throw (E) ex;
    }
}
