package org.acme.pool;

/**
 * Told about a pool's connections. Called without pool locks held, on whichever thread
 * borrowed, returned or evicted the connection; implementations must be thread-safe.
 */
public interface PoolListener {

    default void borrowed(PooledConnection connection) {
    }

    default void returned(PooledConnection connection) {
    }

    default void destroyed(PooledConnection connection) {
    }
}
