package org.acme.pool;

import java.io.IOException;

/** Opens backend connections; called without any pool lock held, possibly by several threads. */
@FunctionalInterface
public interface ConnectionFactory {

    RawConnection open() throws IOException;
}
