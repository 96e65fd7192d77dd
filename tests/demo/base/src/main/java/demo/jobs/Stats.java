package demo.jobs;

import java.util.concurrent.atomic.AtomicLong;

/** Counters a monitoring thread reads while the workers run. */
public class Stats {
    private final AtomicLong taken = new AtomicLong();
    private final AtomicLong cancelled = new AtomicLong();

    void taken() {
        taken.incrementAndGet();
    }

    void cancelled() {
        cancelled.incrementAndGet();
    }

    public long takenCount() {
        return taken.get();
    }
}
