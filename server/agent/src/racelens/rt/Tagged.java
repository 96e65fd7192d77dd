package racelens.rt;

/**
 * Implemented by every instrumented application class (the instrumenter adds a field and these
 * two methods): the number of the object in the execution that last used it, so that the
 * {@link Trace} can tell objects apart without a map (identity hash codes are all the same under
 * racelens, {@code -XX:hashCode=2}). The high 32 bits are the execution's number
 * ({@link Rt#epoch}), the low ones the object's.
 */
public interface Tagged {
    long $racelens$tag();

    void $racelens$tag(long tag);
}
