package racelens.agent.instrument;

import java.util.Map;
import java.util.Set;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.tree.InsnList;
import org.objectweb.asm.tree.InsnNode;
import org.objectweb.asm.tree.MethodInsnNode;
import org.objectweb.asm.tree.TypeInsnNode;

import static racelens.agent.instrument.Instrumenter.MODEL;
import static racelens.agent.instrument.MethodContext.ldc;
import static racelens.agent.instrument.MethodContext.rt;

/**
 * {@code java.util.concurrent} under the scheduler: allocations of the modelled JDK classes
 * become allocations of their models in {@code racelens.rt.model} (which block through the
 * scheduler, never in the JDK), a subclass's {@code super} calls go to the model it now
 * extends, the executor factories return the controlled executor, and calls the models cannot
 * override (final methods of the lock families and of {@code AbstractQueuedSynchronizer}, {@code
 * ForkJoinTask}'s scheduling methods) become static calls of the model's helpers ({@link
 * JdkApi}). Parallel streams become sequential. The JDK's own versions would block a
 * controlled thread out of the scheduler's sight, or run work in threads it does not control.
 */
final class ConcurrentRedirects {
    /** Allocation of these JDK classes is replaced by a model subclass. */
    static final Map<String, String> MODELS = Map.ofEntries(
            Map.entry("java/util/concurrent/locks/ReentrantLock", MODEL + "ModelReentrantLock"),
            Map.entry("java/util/concurrent/locks/ReentrantReadWriteLock", MODEL + "ModelReentrantReadWriteLock"),
            Map.entry("java/util/concurrent/Semaphore", MODEL + "ModelSemaphore"),
            Map.entry("java/util/concurrent/CountDownLatch", MODEL + "ModelCountDownLatch"),
            Map.entry("java/util/concurrent/CyclicBarrier", MODEL + "ModelCyclicBarrier"),
            Map.entry("java/util/concurrent/LinkedBlockingQueue", MODEL + "ModelLinkedBlockingQueue"),
            Map.entry("java/util/concurrent/ArrayBlockingQueue", MODEL + "ModelArrayBlockingQueue"),
            Map.entry("java/util/concurrent/LinkedBlockingDeque", MODEL + "ModelLinkedBlockingDeque"),
            Map.entry("java/util/concurrent/SynchronousQueue", MODEL + "ModelSynchronousQueue"),
            Map.entry("java/util/concurrent/PriorityBlockingQueue", MODEL + "ModelPriorityBlockingQueue"),
            Map.entry("java/util/concurrent/DelayQueue", MODEL + "ModelDelayQueue"),
            Map.entry("java/util/concurrent/Phaser", MODEL + "ModelPhaser"),
            Map.entry("java/util/concurrent/Exchanger", MODEL + "ModelExchanger"),
            Map.entry("java/util/concurrent/locks/StampedLock", MODEL + "ModelStampedLock"),
            // abstract: an application synchronizer extends the model instead; its conditions are the model's
            Map.entry(JdkApi.AQS, MODEL + "ModelAbstractQueuedSynchronizer"),
            Map.entry(JdkApi.CONDITION_OBJECT, MODEL + "ModelAbstractQueuedSynchronizer$ModelConditionObject"),
            Map.entry("java/util/concurrent/FutureTask", MODEL + "ModelFutureTask"),
            Map.entry("java/util/concurrent/CompletableFuture", MODEL + "ModelCompletableFuture"),
            Map.entry("java/util/concurrent/ThreadPoolExecutor", MODEL + "ModelThreadPoolExecutor"),
            Map.entry("java/util/concurrent/ScheduledThreadPoolExecutor", MODEL + "ModelScheduledThreadPoolExecutor"),
            Map.entry("java/util/concurrent/ForkJoinPool", MODEL + "ModelForkJoinPool"),
            Map.entry("java/util/Timer", MODEL + "ModelTimer"));

    /** Static factories replaced by the controlled executor (same name and descriptor). */
    static final Set<String> EXECUTOR_FACTORIES = Set.of(
            "java/util/concurrent/Executors.newFixedThreadPool",
            "java/util/concurrent/Executors.newCachedThreadPool",
            "java/util/concurrent/Executors.newSingleThreadExecutor",
            "java/util/concurrent/Executors.newWorkStealingPool",
            "java/util/concurrent/Executors.newScheduledThreadPool",
            "java/util/concurrent/Executors.newSingleThreadScheduledExecutor",
            "java/util/concurrent/CompletableFuture.runAsync",
            "java/util/concurrent/CompletableFuture.supplyAsync",
            "java/util/concurrent/CompletableFuture.completedFuture",
            "java/util/concurrent/CompletableFuture.allOf",
            "java/util/concurrent/CompletableFuture.anyOf",
            "java/util/concurrent/CompletableFuture.failedFuture",
            "java/util/concurrent/CompletableFuture.completedStage",
            "java/util/concurrent/CompletableFuture.failedStage",
            "java/util/concurrent/CompletableFuture.delayedExecutor");

    private final MethodContext x;
    private final AtomicCalls atomic;

    ConcurrentRedirects(MethodContext x, AtomicCalls atomic) {
        this.x = x;
        this.atomic = atomic;
    }

    /** {@code new T} of a modelled JDK class {@code T}: {@code new} of its model. */
    static void newInstance(TypeInsnNode t) {
        String model = MODELS.get(t.desc);
        if (model != null) {
            t.desc = model;
        }
    }

    /** The constructor call of an object created by {@code new created}: the model's when {@link #newInstance} replaced it. True when so. */
    static boolean constructor(MethodInsnNode n, String created) {
        String model = MODELS.get(created);
        if (model != null && n.owner.equals(created)) {
            n.owner = model;
            return true;
        }
        return false;
    }

    /**
     * {@code super(...)} or {@code super.m(...)} in a class whose JDK super class the class
     * visitor replaced by its model: the call goes to the model.
     */
    void superCall(MethodInsnNode n) {
        String model = MODELS.get(n.owner);
        if (model != null && model.equals(x.c.superName)) {
            n.owner = model;
        }
    }

    /**
     * A call that is not {@code invokespecial}, after {@link ThreadCallRewriter} left it: true
     * when it was replaced and needs nothing more. A parallel stream made sequential is not
     * done with: its call is still a library's ({@link AtomicCalls}).
     */
    boolean call(MethodInsnNode n) {
        if (forkJoin(n) || jdkTaskState(n) || jdkApi(n)) {
            return true;
        }
        String name = n.name; // as written: sequentialStream may rename the call
        sequentialStream(n);
        if (EXECUTOR_FACTORIES.contains(n.owner + "." + name) && n.getOpcode() == Opcodes.INVOKESTATIC) {
            x.insns.set(n, new MethodInsnNode(Opcodes.INVOKESTATIC, MODEL + "ModelExecutors", name, n.desc, false));
            return true;
        }
        return false;
    }

    static final String FJ_TASK = "java/util/concurrent/ForkJoinTask";
    static final String FJ_TASKS = MODEL + "ModelForkJoinTasks";

    /**
     * Calls that schedule fork/join work, whose JDK versions are final (no model subclass
     * can replace them): {@code ForkJoinPool.commonPool()}, and {@code fork}/{@code join}/
     * {@code invoke}/{@code get}/{@code quietly*} of {@code ForkJoinTask} (and subclasses),
     * {@code ForkJoinTask.invokeAll}, {@code Future.get} (a fork/join task may be held as a
     * Future) become static calls of {@code ModelForkJoinTasks}, the site pushed last.
     * True when replaced.
     */
    boolean forkJoin(MethodInsnNode n) {
        int op = n.getOpcode();
        String key = n.name + n.desc;
        if (op == Opcodes.INVOKESTATIC && n.owner.equals("java/util/concurrent/ForkJoinPool") && key.equals("commonPool()Ljava/util/concurrent/ForkJoinPool;")) {
            x.insns.set(n, new MethodInsnNode(Opcodes.INVOKESTATIC, MODEL + "ModelForkJoinPool", "commonPool", n.desc, false));
            return true;
        }
        if (op == Opcodes.INVOKEINTERFACE && isFutureInterface(n.owner) && n.name.equals("get")) {
            String repl = key.equals("get()Ljava/lang/Object;") ? "(Ljava/util/concurrent/Future;I)Ljava/lang/Object;"
                    : key.equals("get(JLjava/util/concurrent/TimeUnit;)Ljava/lang/Object;")
                            ? "(Ljava/util/concurrent/Future;JLjava/util/concurrent/TimeUnit;I)Ljava/lang/Object;" : null;
            if (repl == null) {
                return false;
            }
            x.insns.insertBefore(n, ldc(x.site("CALL", n.owner.replace('/', '.') + ".get")));
            x.insns.set(n, new MethodInsnNode(Opcodes.INVOKESTATIC, FJ_TASKS, "futureGet", repl, false));
            return true;
        }
        String t = "Ljava/util/concurrent/ForkJoinTask;";
        String repl;
        if (op == Opcodes.INVOKEVIRTUAL) {
            switch (key) {
                case "fork()Ljava/util/concurrent/ForkJoinTask;": repl = "(" + t + "I)" + t; break;
                case "join()Ljava/lang/Object;":
                case "invoke()Ljava/lang/Object;":
                case "get()Ljava/lang/Object;": repl = "(" + t + "I)Ljava/lang/Object;"; break;
                case "get(JLjava/util/concurrent/TimeUnit;)Ljava/lang/Object;": repl = "(" + t + "JLjava/util/concurrent/TimeUnit;I)Ljava/lang/Object;"; break;
                case "quietlyJoin()V":
                case "quietlyInvoke()V": repl = "(" + t + "I)V"; break;
                default: return false;
            }
        } else if (op == Opcodes.INVOKESTATIC) {
            switch (key) {
                case "invokeAll(Ljava/util/concurrent/ForkJoinTask;Ljava/util/concurrent/ForkJoinTask;)V": repl = "(" + t + t + "I)V"; break;
                case "invokeAll([Ljava/util/concurrent/ForkJoinTask;)V": repl = "([" + t + "I)V"; break;
                case "invokeAll(Ljava/util/Collection;)Ljava/util/Collection;": repl = "(Ljava/util/Collection;I)Ljava/util/Collection;"; break;
                default: return false;
            }
        } else {
            return false;
        }
        if (!isForkJoinTask(n.owner)) {
            return false;
        }
        x.insns.insertBefore(n, ldc(x.site("CALL", FJ_TASK.replace('/', '.') + "." + n.name)));
        x.insns.set(n, new MethodInsnNode(Opcodes.INVOKESTATIC, FJ_TASKS, n.name, repl, false));
        return true;
    }

    /**
     * A parallel stream of application code becomes sequential: {@code parallel()} is
     * {@code sequential()}, a JDK collection's {@code parallelStream()} is {@code stream()},
     * {@code StreamSupport}'s {@code parallel} flag is false. Its work then runs in the
     * calling thread with the scheduling points of its lambdas, and never in the JDK's
     * fork/join machinery, whose one shared submission queue (a common pool without
     * threads) two controlled threads would otherwise interleave on and block in for real.
     * Its own parallelism is not explored, and the execution says so ({@link
     * racelens.rt.Rt#sequentialStream}): a claim about its schedules must not hide it.
     */
    void sequentialStream(MethodInsnNode n) {
        if (!n.owner.startsWith("java/")) {
            return;
        }
        String target = n.owner.replace('/', '.') + "." + n.name;
        if (n.owner.startsWith("java/util/stream/") && n.name.equals("parallel") && n.desc.startsWith("()")) {
            n.name = "sequential";
        } else if (n.name.equals("parallelStream") && n.desc.equals("()Ljava/util/stream/Stream;")) {
            n.name = "stream";
        } else if (n.owner.equals("java/util/stream/StreamSupport") && n.desc.contains("Z)")) {
            InsnList flag = new InsnList();
            flag.add(new InsnNode(Opcodes.POP));
            flag.add(new InsnNode(Opcodes.ICONST_0));
            x.insns.insertBefore(n, flag);
        } else {
            return;
        }
        x.insns.insertBefore(n, ldc(x.site("CALL", target)));
        x.insns.insertBefore(n, rt("sequentialStream", "(I)V"));
    }

    static boolean isFutureInterface(String owner) {
        switch (owner) {
            case "java/util/concurrent/Future":
            case "java/util/concurrent/RunnableFuture":
            case "java/util/concurrent/ScheduledFuture":
            case "java/util/concurrent/RunnableScheduledFuture":
                return true;
            default:
                return false;
        }
    }

    boolean isForkJoinTask(String owner) {
        if (owner.startsWith("[")) {
            return false;
        }
        if (owner.startsWith("java/")) {
            return owner.equals(FJ_TASK) || owner.equals("java/util/concurrent/RecursiveTask")
                    || owner.equals("java/util/concurrent/RecursiveAction") || owner.equals("java/util/concurrent/CountedCompleter");
        }
        return ClassInfo.isSubclass(owner, FJ_TASK, x.c.loader);
    }

    /**
     * A call to a JDK method of a {@code TimerTask} or {@code ForkJoinTask} made through an
     * application subclass ({@code refresh.cancel()} on a {@code RefreshTask}): not a JDK
     * owner, so no call point of its own, yet it reads or writes the task's state that the
     * timer and pool models touch. A scheduling point on the task before it (an override in
     * the application keeps its own points). False: the call is left as it is.
     */
    boolean jdkTaskState(MethodInsnNode n) {
        if (n.getOpcode() != Opcodes.INVOKEVIRTUAL || n.owner.startsWith("java/") || n.owner.startsWith("[")) {
            return false;
        }
        String key = n.name + n.desc;
        String family;
        switch (key) {
            case "cancel()Z":
            case "scheduledExecutionTime()J":
                family = "java/util/TimerTask";
                break;
            case "isDone()Z":
            case "isCancelled()Z":
            case "isCompletedAbnormally()Z":
            case "isCompletedNormally()Z":
            case "getException()Ljava/lang/Throwable;":
            case "getRawResult()Ljava/lang/Object;":
            case "tryUnfork()Z":
            case "reinitialize()V":
            case "quietlyComplete()V":
            case "cancel(Z)Z":
                family = FJ_TASK;
                break;
            default:
                return false;
        }
        if (!ClassInfo.isSubclass(n.owner, family, x.c.loader) || !x.superCalled) {
            return false;
        }
        InsnList l = new InsnList();
        boolean oneArg = key.equals("cancel(Z)Z");
        if (oneArg) {
            l.add(new InsnNode(Opcodes.SWAP)); // receiver, arg -> arg, receiver
            l.add(new InsnNode(Opcodes.DUP_X1)); // receiver, arg, receiver
        } else {
            l.add(new InsnNode(Opcodes.DUP));
        }
        l.add(ldc(x.site("CALL", family.replace('/', '.') + "." + n.name)));
        l.add(rt("point", "(Ljava/lang/Object;I)V"));
        x.insns.insertBefore(n, l);
        return true;
    }

    /**
     * The calls of {@link JdkApi}: final methods of the lock families and of the synchronizer
     * become static calls of {@code FinalCalls} (behind a point, except the synchronizer's
     * acquisitions and releases, whose {@code tryAcquire}/{@code tryRelease} have points of
     * their own), the synchronizer's state methods get a point, and a call through an
     * application subclass of a lock family to a method the application does not declare
     * gets the point a call through the JDK type gets. True when handled.
     */
    boolean jdkApi(MethodInsnNode n) {
        int op = n.getOpcode();
        if (op != Opcodes.INVOKEVIRTUAL && op != Opcodes.INVOKEINTERFACE) {
            return false;
        }
        String key = n.name + n.desc;
        if ((n.owner.equals(JdkApi.CONDITION) || n.owner.equals(JdkApi.CONDITION_OBJECT)) && JdkApi.CONDITION_METHODS.contains(key)) {
            redirect(n, JdkApi.CONDITION, n.owner.replace('/', '.') + "." + n.name);
            return true;
        }
        if (JdkApi.CONDITION_QUERIES.contains(key) && !n.owner.startsWith("java/")
                && ClassInfo.isSubclass(n.owner, JdkApi.CONDITION_OBJECT, x.c.loader)) {
            redirect(n, JdkApi.CONDITION_OBJECT, JdkApi.CONDITION_OBJECT.replace('/', '.') + "." + n.name);
            return true;
        }
        String family = JdkApi.family(n.owner, x.c.loader);
        if (family == null) {
            return false;
        }
        String target = family.replace('/', '.') + "." + n.name;
        if (family.equals(JdkApi.AQS)) {
            if (JdkApi.AQS_STATE.contains(key)) {
                if (x.superCalled) {
                    atomic.bracket(n, x.site("CALL", target));
                }
                return true;
            }
            if (JdkApi.AQS_ACQUIRE.contains(key)) {
                x.insns.set(n, new MethodInsnNode(Opcodes.INVOKESTATIC, JdkApi.FINAL_CALLS, n.name, JdkApi.staticDesc(family, n.desc), false));
                return true;
            }
            if (JdkApi.FINALS.get(family).contains(key)) {
                redirect(n, family, target);
                return true;
            }
            return false; // its other methods: the application's, or Object's
        }
        if (JdkApi.FINALS.getOrDefault(family, java.util.Set.of()).contains(key)) {
            redirect(n, family, target);
            return true;
        }
        if (!n.owner.startsWith("java/") && op == Opcodes.INVOKEVIRTUAL && x.superCalled
                && JdkApi.runsJdkMethod(n.owner, family, key, x.c.loader)) {
            atomic.bracket(n, x.site("CALL", target));
            return true;
        }
        return false;
    }

    /**
     * {@code n} becomes a static call of {@code FinalCalls} with the receiver (as a
     * {@code receiver}) first; behind a point named {@code target}, as one atomic step.
     */
    void redirect(MethodInsnNode n, String receiver, String target) {
        if (x.superCalled) {
            atomic.bracket(n, x.site("CALL", target));
        }
        x.insns.set(n, new MethodInsnNode(Opcodes.INVOKESTATIC, JdkApi.FINAL_CALLS, n.name, JdkApi.staticDesc(receiver, n.desc), false));
    }
}
