package org.acme.scheduler;

import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.logging.Logger;

/**
 * The scheduler: jobs are submitted (at most one per dedupe key at a time), queued, run by
 * the worker pool and retried. Submissions hold the read lock of {@code lifecycle}, shutdown
 * its write lock. The per-name rejection counts are guarded by the scheduler's monitor.
 */
public final class Scheduler {

    private static final Logger LOG = Logger.getLogger(Scheduler.class.getName());

    private final JobQueue queue;
    private final WorkerPool pool;
    private final RetryPolicy retryPolicy;
    private final JobStats stats = new JobStats();
    private final ConcurrentHashMap<String, Job> jobs = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Job> byDedupeKey = new ConcurrentHashMap<>();
    private final CopyOnWriteArrayList<JobListener> listeners = new CopyOnWriteArrayList<>();
    private final ReentrantReadWriteLock lifecycle = new ReentrantReadWriteLock();
    private final AtomicLong ids = new AtomicLong();
    private final AtomicLong traces = new AtomicLong();

    // guarded by lifecycle
    private boolean shutDown;
    // guarded by this
    private final Map<String, Integer> rejectedByName = new HashMap<>();

    public Scheduler(int workers, int capacity, RetryPolicy retryPolicy, double permitsPerSecond, int retryBudget) {
        this.retryPolicy = retryPolicy;
        this.queue = new JobQueue(capacity, this::onRejected);
        RateLimiter limiter = new RateLimiter(permitsPerSecond, Math.max(1, workers));
        this.pool = new WorkerPool(workers, queue, retryPolicy, stats, limiter, new Fanout(), retryBudget);
    }

    public void start() {
        pool.start();
    }

    public void addListener(JobListener listener) {
        listeners.addIfAbsent(listener);
    }

    /**
     * Submits a job. With a dedupe key, a job with the same key that is still queued or
     * running is returned instead of a new one.
     */
    public Job submit(String name, String dedupeKey, Callable<String> task) {
        lifecycle.readLock().lock();
        try {
            if (shutDown) {
                throw new RejectedExecutionException("the scheduler is shut down");
            }
            long now = System.currentTimeMillis();
            Job job = new Job("job-" + ids.incrementAndGet(), name, dedupeKey, task, retryPolicy.maxAttempts(), now);
            job.setTraceId(name + "-" + Long.toHexString(now) + "-" + traces.incrementAndGet());
            if (dedupeKey != null) {
                Job existing = byDedupeKey.putIfAbsent(dedupeKey, job);
                if (existing != null) {
                    return existing;
                }
            }
            jobs.put(job.id(), job);
            stats.recordSubmitted();
            if (!queue.offer(job, now)) {
                jobs.remove(job.id());
                forgetDedupeKey(job);
                throw new RejectedExecutionException("queue full, rejected " + name);
            }
            return job;
        } finally {
            lifecycle.readLock().unlock();
        }
    }

    public Job lookup(String id) {
        return jobs.get(id);
    }

    /** Cancels a queued job (or one waiting for a retry); false when it runs or has finished. */
    public boolean cancel(String id) {
        Job job = jobs.get(id);
        if (job == null || !job.cancel(System.currentTimeMillis())) {
            return false;
        }
        stats.recordCancelled();
        forgetDedupeKey(job);
        queue.purgeCancelled();
        return true;
    }

    private void forgetDedupeKey(Job job) {
        if (job.dedupeKey() != null) {
            byDedupeKey.remove(job.dedupeKey(), job);
        }
    }

    /** The queue's rejection handler; called without the queue's monitor. */
    private synchronized void onRejected(Job job) {
        rejectedByName.merge(job.name(), 1, Integer::sum);
    }

    public synchronized String status() {
        JobStats.Snapshot s = stats.snapshot();
        StringBuilder sb = new StringBuilder();
        sb.append(queue.describe());
        sb.append(" submitted=").append(s.submitted());
        sb.append(" succeeded=").append(s.succeeded());
        sb.append(" failed=").append(s.failed());
        sb.append(" retried=").append(s.retried());
        sb.append(" cancelled=").append(s.cancelled());
        sb.append(" mean=").append(String.format("%.1fms", s.meanRunMillis()));
        sb.append(" running=").append(pool.runningJobs());
        sb.append(" budget=").append(pool.retryBudgetLeft());
        if (!rejectedByName.isEmpty()) {
            sb.append(" rejected=").append(new TreeMap<>(rejectedByName));
        }
        return sb.toString();
    }

    /**
     * Refuses new jobs, waits (up to the timeout) for the queued ones to be taken and the
     * running ones to finish, then stops the workers. Returns whether everything finished.
     */
    public boolean shutdown(long timeoutMillis) throws InterruptedException {
        lifecycle.writeLock().lock();
        try {
            if (shutDown) {
                return pool.awaitTermination(timeoutMillis, TimeUnit.MILLISECONDS);
            }
            shutDown = true;
        } finally {
            lifecycle.writeLock().unlock();
        }
        long deadline = System.currentTimeMillis() + timeoutMillis;
        boolean drained = queue.awaitEmpty(timeoutMillis)
                && pool.awaitIdle(Math.max(0, deadline - System.currentTimeMillis()), TimeUnit.MILLISECONDS);
        queue.close();
        if (!drained) {
            pool.interruptAll();
        }
        boolean ended = pool.awaitTermination(Math.max(1, deadline - System.currentTimeMillis()), TimeUnit.MILLISECONDS);
        LOG.info("scheduler shut down, drained=" + drained + " ended=" + ended);
        return drained && ended;
    }

    /** Hands the pool's callbacks to the registered listeners and releases dedupe keys. */
    private final class Fanout implements JobListener {

        @Override
        public void onSuccess(Job job, long runMillis) {
            forgetDedupeKey(job);
            for (JobListener l : listeners) {
                l.onSuccess(job, runMillis);
            }
        }

        @Override
        public void onRetry(Job job, String error, long delayMillis) {
            for (JobListener l : listeners) {
                l.onRetry(job, error, delayMillis);
            }
        }

        @Override
        public void onFailure(Job job, String error) {
            forgetDedupeKey(job);
            for (JobListener l : listeners) {
                l.onFailure(job, error);
            }
        }
    }
}
