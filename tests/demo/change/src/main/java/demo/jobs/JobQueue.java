package demo.jobs;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The queue the workers take jobs from. Producers submit from any thread; cancelling
 * and looking up jobs goes through a concurrent index without taking the queue's lock.
 */
public class JobQueue {
    private final Deque<Job> pending = new ArrayDeque<>();
    private final Map<String, Job> byId = new ConcurrentHashMap<>();
    private final Stats stats;
    private int submitted;
    private int completed;
    private boolean shutdown;

    public JobQueue(Stats stats) {
        this.stats = stats;
    }

    public synchronized void submit(Job job) {
        if (shutdown) {
            throw new IllegalStateException("queue is shut down");
        }
        pending.addLast(job);
        byId.put(job.id(), job);
        submitted++;
        notifyAll();
    }

    /** Blocks until a job is available; returns null once the queue is shut down. */
    public synchronized Job take() throws InterruptedException {
        while (pending.isEmpty() && !shutdown) {
            wait();
        }
        Job job = pending.pollFirst();
        stats.taken();
        return job;
    }

    public void complete(Job job) {
        completed++;
        byId.remove(job.id());
        notifyAll();
    }

    public boolean cancel(String id) {
        if (!byId.containsKey(id)) {
            return false;
        }
        Job job = byId.remove(id);
        synchronized (this) {
            pending.remove(job);
        }
        stats.cancelled();
        return true;
    }

    public synchronized int backlog() {
        return submitted - completed;
    }

    public synchronized void shutdown() {
        shutdown = true;
        notifyAll();
    }
}
