package org.acme.pool;

import java.io.IOException;

/** No connection became available within the borrow timeout. */
public class PoolExhaustedException extends IOException {

    private static final long serialVersionUID = 1L;

    public PoolExhaustedException(String pool, long timeoutMillis) {
        super("pool " + pool + ": no connection available within " + timeoutMillis + " ms");
    }
}
