package racelens.rt;

import java.util.Set;

/**
 * Calls into the JDK that only read the object they are called on (so that two of them on one
 * object do not conflict), and static calls that touch no state an application can share. Every
 * other call counts as writing its receiver, and every other static call as touching everything:
 * a call racelens does not know is assumed to conflict, never the other way round.
 *
 * <p>A method name reads only on classes whose implementation is known to: the concurrent
 * collections and atomics, and the plain collections by their exact class ({@code LinkedHashMap}
 * in access order writes on {@code get}).
 */
final class Pure {
    private Pure() {}

    private static final Set<String> READERS = Set.of("get", "getPlain", "getOpaque", "getAcquire", "intValue", "longValue",
            "doubleValue", "floatValue", "size", "isEmpty", "contains", "containsKey", "containsValue", "containsAll",
            "getOrDefault", "peek", "peekFirst", "peekLast", "element", "getFirst", "getLast", "indexOf", "lastIndexOf",
            "firstKey", "lastKey", "first", "last", "toString", "hashCode", "equals", "toArray", "remainingCapacity",
            "getCount", "isDone", "isCancelled", "isCompletedExceptionally", "getNow", "availablePermits", "isLocked",
            "isHeldByCurrentThread", "getHoldCount", "hasQueuedThreads", "getQueueLength", "isShutdown", "isTerminated",
            "getNumberWaiting", "getParties", "isBroken", "sum");

    private static final Set<String> KNOWN = Set.of("java.util.concurrent.ConcurrentHashMap", "java.util.concurrent.ConcurrentSkipListMap",
            "java.util.concurrent.ConcurrentSkipListSet", "java.util.concurrent.ConcurrentLinkedQueue",
            "java.util.concurrent.ConcurrentLinkedDeque", "java.util.concurrent.CopyOnWriteArrayList",
            "java.util.concurrent.CopyOnWriteArraySet", "java.util.concurrent.atomic.AtomicInteger",
            "java.util.concurrent.atomic.AtomicLong", "java.util.concurrent.atomic.AtomicBoolean",
            "java.util.concurrent.atomic.AtomicReference", "java.util.concurrent.atomic.AtomicIntegerArray",
            "java.util.concurrent.atomic.AtomicLongArray", "java.util.concurrent.atomic.AtomicReferenceArray",
            "java.util.concurrent.atomic.LongAdder", "java.util.concurrent.atomic.DoubleAdder", "java.util.ArrayList",
            "java.util.LinkedList", "java.util.ArrayDeque", "java.util.HashMap", "java.util.HashSet", "java.util.TreeMap",
            "java.util.TreeSet", "java.util.Vector", "java.util.Hashtable", "java.util.EnumMap", "java.util.IdentityHashMap");

    /** Static JDK methods without shared state (factories of immutable values, thread-local randomness). */
    private static final Set<String> STATIC = Set.of("java.util.List.of", "java.util.Set.of", "java.util.Map.of",
            "java.util.Map.entry", "java.util.Map.ofEntries", "java.util.List.copyOf", "java.util.Set.copyOf",
            "java.util.Map.copyOf", "java.util.Collections.emptyList", "java.util.Collections.emptySet",
            "java.util.Collections.emptyMap", "java.util.Collections.singletonList", "java.util.Collections.singleton",
            "java.util.Collections.singletonMap", "java.util.Collections.unmodifiableList",
            "java.util.Collections.unmodifiableSet", "java.util.Collections.unmodifiableMap",
            "java.util.Collections.unmodifiableCollection", "java.util.Collections.synchronizedList",
            "java.util.Collections.synchronizedMap", "java.util.Collections.synchronizedSet",
            "java.util.Collections.newSetFromMap", "java.util.Arrays.asList", "java.util.concurrent.ThreadLocalRandom.current",
            "java.util.concurrent.TimeUnit.values", "java.util.concurrent.TimeUnit.valueOf",
            "java.util.concurrent.ConcurrentHashMap.newKeySet", "java.util.concurrent.Executors.callable");

    private static final ClassValue<Boolean> KNOWN_CLASS = new ClassValue<>() {
        @Override
        protected Boolean computeValue(Class<?> c) {
            return KNOWN.contains(c.getName());
        }
    };

    /** Whether the call at {@code site} only reads {@code receiver}. */
    static boolean reads(Object receiver, int site) {
        if (receiver instanceof Readers) {
            return ((Readers) receiver).readsOnly(Sites.callee(site));
        }
        if (receiver instanceof Thread) {
            // Thread.getState, LockSupport.getBlocker: they record their own effects, reads of the thread's state
            String target = Sites.target[site];
            return target.equals("java.lang.Thread.getState") || target.equals("java.util.concurrent.locks.LockSupport.getBlocker");
        }
        return Sites.flag(site, Sites.F_READER, () -> READERS.contains(Sites.callee(site))) && KNOWN_CLASS.get(receiver.getClass());
    }

    /** The additive updates of the counters, by the exact class (a subclass may override them). */
    private static final Set<String> ADDERS = Set.of("incrementAndGet", "decrementAndGet", "getAndIncrement", "getAndDecrement",
            "addAndGet", "getAndAdd", "add", "increment", "decrement", "countDown");

    private static final ClassValue<Boolean> COUNTER_CLASS = new ClassValue<>() {
        @Override
        protected Boolean computeValue(Class<?> c) {
            // Not DoubleAdder: floating-point sums depend on the order of the additions.
            // A latch's count goes down by one per countDown() (and stays at zero): two of them
            // end alike in either order; await() and getCount() read it.
            return c == java.util.concurrent.atomic.AtomicInteger.class || c == java.util.concurrent.atomic.AtomicLong.class
                    || c == java.util.concurrent.atomic.AtomicIntegerArray.class || c == java.util.concurrent.atomic.AtomicLongArray.class
                    || c == java.util.concurrent.atomic.LongAdder.class || c == racelens.rt.model.ModelCountDownLatch.class;
        }
    };

    /**
     * Whether the call at {@code site} is an addition to a counter whose result the code drops
     * ({@code hits.incrementAndGet();}, {@code adder.add(n)}): two of them commute, in either
     * order they leave the same value and tell no one which ran first (the trace's {@code c}
     * effect, which the reduction does not reorder against another).
     */
    static boolean commutes(Object receiver, int site) {
        return Sites.resultUnused[site] && Sites.flag(site, Sites.F_ADDER, () -> ADDERS.contains(Sites.callee(site)))
                && COUNTER_CLASS.get(receiver.getClass());
    }

    /** Whether the static call at {@code site} touches no shared state. */
    static boolean isStatic(int site) {
        return Sites.flag(site, Sites.F_PURE_STATIC, () -> STATIC.contains(Sites.target[site]));
    }
}
