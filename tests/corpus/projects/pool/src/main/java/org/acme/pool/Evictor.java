package org.acme.pool;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The background thread of a pool: closes connections idle for too long and reports
 * connections held for suspiciously long.
 */
final class Evictor implements Runnable {

    private static final Logger LOG = Logger.getLogger(Evictor.class.getName());

    private final ConnectionPool pool;
    private final AtomicBoolean started = new AtomicBoolean();
    private volatile boolean running = true;
    private volatile Thread thread;
    private volatile long lastRunMillis;
    private long runs;

    Evictor(ConnectionPool pool) {
        this.pool = pool;
    }

    /** Starts the thread; later calls do nothing. */
    void start() {
        if (started.compareAndSet(false, true)) {
            Thread t = new Thread(this, "pool-evictor-" + pool.name());
            t.setDaemon(true);
            thread = t;
            t.start();
        }
    }

    /** Stops the thread and waits up to five seconds for it. */
    void stop() throws InterruptedException {
        running = false;
        Thread t = thread;
        if (t != null) {
            t.interrupt();
            t.join(TimeUnit.SECONDS.toMillis(5));
        }
    }

    /** When the last eviction run finished, in epoch milliseconds; 0 before the first. */
    long lastRunMillis() {
        return lastRunMillis;
    }

    @Override
    public void run() {
        while (running) {
            PoolSettings settings = pool.settings();
            try {
                Thread.sleep(settings.evictionIntervalMillis());
            } catch (InterruptedException e) {
                return;
            }
            try {
                int evicted = pool.evictIdle(settings.maxIdleMillis(), settings.minIdle());
                for (PooledConnection leak : pool.findLeaks(settings.leakThresholdMillis())) {
                    LOG.warning(() -> leak + " has been borrowed for " + leak.heldMillis() + " ms");
                }
                runs++;
                if (evicted > 0 || runs % 100 == 0) {
                    LOG.fine("eviction run " + runs + " closed " + evicted + " idle connections");
                }
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "eviction run failed", e);
            }
            lastRunMillis = System.currentTimeMillis();
        }
    }
}
