package org.acme.scheduler;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Worker threads that take due jobs from the queue, run them, and queue a retry after a
 * failure while the job has attempts and the pool has retry budget left. Which worker runs
 * which job, and how many are busy, is guarded by {@code lock}.
 */
public final class WorkerPool {

    private static final Logger LOG = Logger.getLogger(WorkerPool.class.getName());
    private static final long THROTTLE_PAUSE_MILLIS = 20;

    private final int size;
    private final JobQueue queue;
    private final RetryPolicy retryPolicy;
    private final JobStats stats;
    private final RateLimiter limiter;
    private final JobListener listener;
    private final AtomicInteger retryBudget;
    private final AtomicBoolean started = new AtomicBoolean();
    private final CountDownLatch terminated;
    private final List<Thread> threads = new ArrayList<>();

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition idle = lock.newCondition();
    // guarded by lock
    private final Map<String, Job> running = new HashMap<>();
    private int busy;

    WorkerPool(int size, JobQueue queue, RetryPolicy retryPolicy, JobStats stats, RateLimiter limiter, JobListener listener, int retryBudget) {
        if (size < 1) {
            throw new IllegalArgumentException("size " + size);
        }
        this.size = size;
        this.queue = queue;
        this.retryPolicy = retryPolicy;
        this.stats = stats;
        this.limiter = limiter;
        this.listener = listener;
        this.retryBudget = new AtomicInteger(retryBudget);
        this.terminated = new CountDownLatch(size);
    }

    /** Starts the worker threads; only once. */
    void start() {
        if (!started.compareAndSet(false, true)) {
            throw new IllegalStateException("already started");
        }
        synchronized (threads) {
            for (int i = 0; i < size; i++) {
                Thread t = new Thread(this::workLoop, "worker-" + i);
                t.setDaemon(true);
                threads.add(t);
                t.start();
            }
        }
    }

    private void workLoop() {
        String me = Thread.currentThread().getName();
        try {
            while (true) {
                Job job = queue.take();
                if (job == null) {
                    return; // the queue was closed
                }
                while (!limiter.tryAcquire(1)) {
                    Thread.sleep(THROTTLE_PAUSE_MILLIS);
                }
                runOne(me, job);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            terminated.countDown();
        }
    }

    private void runOne(String worker, Job job) {
        if (!job.tryStart(System.currentTimeMillis())) {
            return; // cancelled while it was queued
        }
        lock.lock();
        try {
            running.put(worker, job);
            busy++;
        } finally {
            lock.unlock();
        }
        LOG.fine(() -> worker + " runs " + job.id() + " trace " + job.traceId());
        long startNanos = System.nanoTime();
        try {
            String result = job.task().call();
            long runMillis = (System.nanoTime() - startNanos) / 1_000_000;
            job.succeed(result, System.currentTimeMillis());
            stats.recordSuccess(runMillis);
            listener.onSuccess(job, runMillis);
        } catch (Exception e) {
            long runMillis = (System.nanoTime() - startNanos) / 1_000_000;
            handleFailure(job, e, runMillis);
        } finally {
            lock.lock();
            try {
                running.remove(worker);
                busy--;
                if (busy == 0) {
                    idle.signalAll();
                }
            } finally {
                lock.unlock();
            }
        }
    }

    private void handleFailure(Job job, Exception e, long runMillis) {
        String error = e.getClass().getSimpleName() + ": " + e.getMessage();
        boolean wantsRetry = job.attemptsLeft() > 0 && takeRetryToken();
        long now = System.currentTimeMillis();
        boolean retry = job.fail(error, now, wantsRetry);
        stats.recordFailure(runMillis, retry);
        if (!retry) {
            LOG.log(Level.WARNING, job.id() + " failed for good: " + error);
            listener.onFailure(job, error);
            return;
        }
        long delay = retryPolicy.delayBefore(job.attempts() + 1);
        if (!queue.offer(job, now + delay)) {
            if (job.abandon("retry rejected: " + error, now)) {
                listener.onFailure(job, error);
            }
            return;
        }
        listener.onRetry(job, error, delay);
    }

    /** Takes one token of the retry budget all jobs share; false when it is spent. */
    private boolean takeRetryToken() {
        while (true) {
            int left = retryBudget.get();
            if (left <= 0) {
                return false;
            }
            if (retryBudget.compareAndSet(left, left - 1)) {
                return true;
            }
        }
    }

    public int retryBudgetLeft() {
        return retryBudget.get();
    }

    /** Which worker runs which job, as "worker=job" lines. */
    public List<String> runningJobs() {
        lock.lock();
        try {
            List<String> out = new ArrayList<>(running.size());
            for (Map.Entry<String, Job> e : running.entrySet()) {
                out.add(e.getKey() + "=" + e.getValue().id());
            }
            return out;
        } finally {
            lock.unlock();
        }
    }

    /** Waits until no worker runs a job; false on timeout. */
    public boolean awaitIdle(long timeout, TimeUnit unit) throws InterruptedException {
        long nanos = unit.toNanos(timeout);
        lock.lock();
        try {
            while (busy > 0) {
                if (nanos <= 0) {
                    return false;
                }
                nanos = idle.awaitNanos(nanos);
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** Waits for the worker threads to end after the queue was closed; false on timeout. */
    boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        return terminated.await(timeout, unit);
    }

    /** Interrupts the workers (a running task sees the interrupt). */
    void interruptAll() {
        synchronized (threads) {
            for (Thread t : threads) {
                t.interrupt();
            }
        }
    }
}
