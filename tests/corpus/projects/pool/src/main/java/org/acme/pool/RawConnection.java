package org.acme.pool;

import java.io.Closeable;
import java.io.IOException;

/**
 * A connection to the backend as the factory opens it: one request at a time, not
 * thread-safe. The pool makes sure one borrower uses it at a time.
 */
public interface RawConnection extends Closeable {

    /** Sends a request and waits for the answer. */
    String exchange(String request) throws IOException;

    /** Whether the transport is still open; cheap, no round trip. */
    boolean isOpen();
}
