package com.renderfarm.jobs;

/** A render node: takes jobs until the queue closes, renders their frames, uploads them. */
public class RenderNode implements Runnable {
    private final String name;
    private final JobQueue queue;
    private final FrameStore store;
    private final FarmStats stats;
    private volatile boolean running;
    private int jobsDone;

    public RenderNode(String name, JobQueue queue, FrameStore store, FarmStats stats) {
        this.name = name;
        this.queue = queue;
        this.store = store;
        this.stats = stats;
    }

    @Override
    public void run() {
        running = true;
        try {
            RenderJob job;
            while ((job = queue.take()) != null) {
                for (int f = job.first(); f <= job.last(); f++) {
                    store.upload(job.scene(), f, checksum(job.scene(), f));
                    stats.frameRendered(name);
                }
                stats.jobCompleted(job.id());
                synchronized (this) {
                    jobsDone++;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            running = false;
        }
    }

    /** Stands in for the renderer: a deterministic checksum of the frame. */
    static String checksum(String scene, int frame) {
        return Integer.toHexString((scene.hashCode() * 31) ^ frame);
    }

    public synchronized int jobsDone() {
        return jobsDone;
    }

    public boolean isRunning() {
        return running;
    }
}
