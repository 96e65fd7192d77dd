package racelens.rt;

/**
 * A model object whose JDK methods include pure readers of its state (the queries of a
 * synchronizer: {@code getState}, {@code hasQueuedThreads}, ...): a call of one of them reads the
 * object, any other call writes it ({@link Pure#reads}), so that two queries do not conflict.
 */
public interface Readers {
    /** Whether the JDK method {@code name} of this object only reads its state. */
    boolean readsOnly(String name);
}
