package racelens.agent.instrument;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The calls of application code into the API of the lock-like JDK classes racelens models,
 * where a plain call would miss the model: the JDK's {@code final} methods, which no model
 * subclass can override and which would read the JDK's own (empty) queues, become static calls
 * of {@code racelens.rt.model.FinalCalls}; the methods of {@code AbstractQueuedSynchronizer}
 * (all final) and of its {@code ConditionObject} run on the synchronizer model; and a call
 * through an application subclass ({@code InterruptibleReentrantLock.lock()}) gets the point a
 * call through the JDK type gets. PROTOCOL.md lists what each family answers.
 */
final class JdkApi {
    private JdkApi() {}

    static final String RL = "java/util/concurrent/locks/ReentrantLock";
    static final String RRW = "java/util/concurrent/locks/ReentrantReadWriteLock";
    static final String SEMAPHORE = "java/util/concurrent/Semaphore";
    static final String AQS = "java/util/concurrent/locks/AbstractQueuedSynchronizer";
    static final String CONDITION_OBJECT = AQS + "$ConditionObject";
    static final String CONDITION = "java/util/concurrent/locks/Condition";
    static final String FINAL_CALLS = Instrumenter.MODEL + "FinalCalls";

    /**
     * The families: the modelled JDK classes whose methods never call back into application code
     * (so a call may run as one atomic step behind its point), and the synchronizer base class.
     */
    static final List<String> FAMILIES = List.of(RL, RRW, SEMAPHORE, "java/util/concurrent/CountDownLatch",
            "java/util/concurrent/locks/StampedLock", AQS);

    private static final Set<String> QUEUE_FINALS = Set.of("hasQueuedThreads()Z", "hasQueuedThread(Ljava/lang/Thread;)Z", "getQueueLength()I");

    /** Final methods answered by {@code FinalCalls} (after a point, as one atomic step), per family. */
    static final Map<String, Set<String>> FINALS = Map.of(
            RL, QUEUE_FINALS,
            RRW, QUEUE_FINALS,
            SEMAPHORE, Set.of("hasQueuedThreads()Z", "getQueueLength()I"),
            AQS, Set.of("hasQueuedThreads()Z", "hasContended()Z", "getFirstQueuedThread()Ljava/lang/Thread;",
                    "isQueued(Ljava/lang/Thread;)Z", "hasQueuedPredecessors()Z", "getQueueLength()I",
                    "getQueuedThreads()Ljava/util/Collection;", "getExclusiveQueuedThreads()Ljava/util/Collection;",
                    "getSharedQueuedThreads()Ljava/util/Collection;",
                    "owns(L" + CONDITION_OBJECT + ";)Z", "hasWaiters(L" + CONDITION_OBJECT + ";)Z",
                    "getWaitQueueLength(L" + CONDITION_OBJECT + ";)I",
                    "getWaitingThreads(L" + CONDITION_OBJECT + ";)Ljava/util/Collection;"));

    /**
     * The synchronizer's acquisitions and releases: static calls of {@code FinalCalls} without a
     * point of their own, so that the application's {@code tryAcquire} and {@code tryRelease}
     * they call keep theirs.
     */
    static final Set<String> AQS_ACQUIRE = Set.of("acquire(I)V", "acquireInterruptibly(I)V", "tryAcquireNanos(IJ)Z",
            "release(I)Z", "acquireShared(I)V", "acquireSharedInterruptibly(I)V", "tryAcquireSharedNanos(IJ)Z", "releaseShared(I)Z");

    /** The synchronizer's state: a point each (its effect: a read or a write of the synchronizer). */
    static final Set<String> AQS_STATE = Set.of("getState()I", "setState(I)V", "compareAndSetState(II)Z");

    /** {@code Condition}'s methods (final in {@code ConditionObject}): static calls that pick the model's for its conditions. */
    static final Set<String> CONDITION_METHODS = Set.of("await()V", "awaitUninterruptibly()V", "awaitNanos(J)J",
            "await(JLjava/util/concurrent/TimeUnit;)Z", "awaitUntil(Ljava/util/Date;)Z", "signal()V", "signalAll()V");

    /** {@code ConditionObject}'s protected final queries, which only an application subclass of it can call. */
    static final Set<String> CONDITION_QUERIES = Set.of("hasWaiters()Z", "getWaitQueueLength()I", "getWaitingThreads()Ljava/util/Collection;");

    /** {@code Object}'s methods: a call of one through a subclass gets no point of its own. */
    private static final Set<String> OBJECT_METHODS = Set.of("getClass()Ljava/lang/Class;", "hashCode()I", "equals(Ljava/lang/Object;)Z");

    /**
     * The family of a call's owner: the family class itself, or the JDK class of {@code FAMILIES}
     * that an application class {@code owner} extends; null for anything else.
     */
    static String family(String owner, ClassLoader loader) {
        if (owner.startsWith("[")) {
            return null;
        }
        String name = owner;
        for (int depth = 0; name != null && depth < 64; depth++) {
            if (name.startsWith("java/")) {
                return FAMILIES.contains(name) ? name : null;
            }
            ClassInfo info = ClassInfo.of(name, loader);
            if (info == null) {
                return null;
            }
            name = info.superName;
        }
        return null;
    }

    /**
     * Whether a call of {@code key} on application class {@code owner} of {@code family} runs the
     * JDK's method (or the model's override of it) rather than the application's own.
     */
    static boolean runsJdkMethod(String owner, String family, String key, ClassLoader loader) {
        return !OBJECT_METHODS.contains(key) && !key.startsWith("<") && !ClassInfo.declaredBelow(owner, family, key, loader);
    }

    /** The descriptor of the static replacement of an instance method {@code desc} whose receiver is a {@code receiver}. */
    static String staticDesc(String receiver, String desc) {
        return "(L" + receiver + ";" + desc.substring(1);
    }
}
