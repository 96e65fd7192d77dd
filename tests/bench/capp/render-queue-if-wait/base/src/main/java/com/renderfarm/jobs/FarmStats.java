package com.renderfarm.jobs;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;

/** Per-node and farm-wide counters for the scheduler's dashboard. */
public class FarmStats {
    private final ReentrantLock lock = new ReentrantLock();
    private final Map<String, Integer> framesByNode = new HashMap<>();
    private int jobsCompleted;
    private volatile String lastCompletedJob = "";

    public void frameRendered(String node) {
        lock.lock();
        try {
            framesByNode.merge(node, 1, Integer::sum);
        } finally {
            lock.unlock();
        }
    }

    public void jobCompleted(String jobId) {
        lock.lock();
        try {
            jobsCompleted++;
        } finally {
            lock.unlock();
        }
        lastCompletedJob = jobId;
    }

    public int jobsCompleted() {
        lock.lock();
        try {
            return jobsCompleted;
        } finally {
            lock.unlock();
        }
    }

    public int framesBy(String node) {
        lock.lock();
        try {
            return framesByNode.getOrDefault(node, 0);
        } finally {
            lock.unlock();
        }
    }

    public String lastCompletedJob() {
        return lastCompletedJob;
    }
}
