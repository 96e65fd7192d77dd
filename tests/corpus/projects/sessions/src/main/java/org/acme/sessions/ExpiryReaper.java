package org.acme.sessions;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A background thread that expires idle sessions every interval, or sooner when asked.
 * The reaper thread alone waits on {@code wakeLock}; callers of {@link #sweepAndWait(long)}
 * wait on the reaper's monitor for a sweep to complete.
 */
public final class ExpiryReaper {

    private final SessionStore store;
    private final long intervalMillis;
    private final AtomicBoolean started = new AtomicBoolean();
    private volatile Thread thread;
    private volatile SweepReport lastReport;

    private final Object wakeLock = new Object();
    // guarded by wakeLock
    private boolean sweepRequested;
    private boolean stopping;

    // guarded by this
    private long sweepsStarted;
    private long sweepsCompleted;

    // only used by the reaper thread
    private long lastSweepStartedAt;

    public ExpiryReaper(SessionStore store, long intervalMillis) {
        this.store = store;
        this.intervalMillis = intervalMillis;
    }

    public void start() {
        if (!started.compareAndSet(false, true)) {
            return;
        }
        Thread t = new Thread(this::run, "session-reaper");
        t.setDaemon(true);
        thread = t;
        t.start();
    }

    private void run() {
        try {
            while (awaitNextRound()) {
                synchronized (this) {
                    sweepsStarted++;
                }
                SweepReport report = sweep(System.currentTimeMillis());
                lastReport = report;
                synchronized (this) {
                    sweepsCompleted++;
                    notifyAll();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Waits for the interval to pass or for a sweep request; false when the reaper stops. */
    private boolean awaitNextRound() throws InterruptedException {
        synchronized (wakeLock) {
            long deadline = System.currentTimeMillis() + intervalMillis;
            while (!sweepRequested && !stopping) {
                long left = deadline - System.currentTimeMillis();
                if (left <= 0) {
                    break;
                }
                wakeLock.wait(left);
            }
            sweepRequested = false;
            return !stopping;
        }
    }

    private SweepReport sweep(long now) {
        SweepReport report = new SweepReport(now, lastSweepStartedAt == 0 ? 0 : now - lastSweepStartedAt);
        lastSweepStartedAt = now;
        for (Session session : store.snapshot()) {
            report.scanned++;
            if (store.expireIfIdle(session, now)) {
                report.expired++;
            }
        }
        report.finishedAt = System.currentTimeMillis();
        return report;
    }

    /** Asks for a sweep now instead of at the end of the interval. */
    public void requestSweep() {
        synchronized (wakeLock) {
            sweepRequested = true;
            wakeLock.notify();
        }
    }

    /** Asks for a sweep and waits until a sweep that started after this call completes; false on timeout. */
    public boolean sweepAndWait(long timeoutMillis) throws InterruptedException {
        long target;
        synchronized (this) {
            target = sweepsStarted + 1;
        }
        requestSweep();
        long deadline = System.currentTimeMillis() + timeoutMillis;
        synchronized (this) {
            while (sweepsCompleted < target) {
                long left = deadline - System.currentTimeMillis();
                if (left <= 0) {
                    return false;
                }
                wait(left);
            }
            return true;
        }
    }

    public SweepReport lastReport() {
        return lastReport;
    }

    public void stop() {
        synchronized (wakeLock) {
            stopping = true;
            wakeLock.notify();
        }
        Thread t = thread;
        if (t != null) {
            t.interrupt();
        }
    }
}
