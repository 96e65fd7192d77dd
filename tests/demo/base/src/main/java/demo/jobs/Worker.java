package demo.jobs;

/** Takes jobs from the queue and runs them until the queue shuts down. */
public class Worker extends Thread {
    private final JobQueue queue;

    public Worker(JobQueue queue, String name) {
        super(name);
        this.queue = queue;
    }

    @Override
    public void run() {
        try {
            Job job;
            while ((job = queue.take()) != null) {
                job.run();
                queue.complete(job);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
