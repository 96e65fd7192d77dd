package demo.jobs;

import static org.junit.Assert.assertEquals;

import org.junit.Test;

public class JobQueueTest {
    @Test
    public void everySubmittedJobCompletes() throws Exception {
        JobQueue queue = new JobQueue(new Stats());
        Worker w1 = new Worker(queue, "w1");
        Worker w2 = new Worker(queue, "w2");
        w1.start();
        w2.start();
        for (int i = 0; i < 4; i++) {
            queue.submit(new Job("job-" + i, () -> { }));
        }
        while (queue.backlog() > 0) {
            Thread.sleep(1);
        }
        queue.shutdown();
        w1.join();
        w2.join();
        assertEquals(0, queue.backlog());
    }
}
