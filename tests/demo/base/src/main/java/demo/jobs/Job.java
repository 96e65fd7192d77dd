package demo.jobs;

/** A unit of work with an id, run by one of the workers. */
public final class Job {
    private final String id;
    private final Runnable body;

    public Job(String id, Runnable body) {
        this.id = id;
        this.body = body;
    }

    public String id() {
        return id;
    }

    void run() {
        body.run();
    }
}
