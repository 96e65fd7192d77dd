package com.renderfarm.jobs;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import java.util.List;
import org.junit.Test;

public class RenderFarmTest {

    @Test
    public void nodesRenderEveryDispatchedFrame() throws Exception {
        JobQueue queue = new JobQueue();
        FrameStore store = new FrameStore();
        FarmStats stats = new FarmStats();
        Dispatcher dispatcher = new Dispatcher(queue, 2);
        RenderNode nodeA = new RenderNode("node-a", queue, store, stats);
        RenderNode nodeB = new RenderNode("node-b", queue, store, stats);
        Throwable[] errors = new Throwable[3];

        Thread dispatch = new Thread(() -> {
            try {
                dispatcher.dispatch(List.of(new Dispatcher.Scene("intro", 3)));
            } catch (Throwable t) {
                errors[0] = t;
            }
        });
        Thread a = new Thread(() -> {
            try {
                nodeA.run();
            } catch (Throwable t) {
                errors[1] = t;
            }
        });
        Thread b = new Thread(() -> {
            try {
                nodeB.run();
            } catch (Throwable t) {
                errors[2] = t;
            }
        });
        dispatch.start();
        a.start();
        b.start();
        dispatch.join();
        a.join();
        b.join();

        assertNull("dispatcher failed", errors[0]);
        assertNull("node-a failed", errors[1]);
        assertNull("node-b failed", errors[2]);
        assertEquals(2, queue.submitted());
        assertEquals(2, stats.jobsCompleted());
        assertEquals(3, store.count());
        assertEquals(2, nodeA.jobsDone() + nodeB.jobsDone());
        assertEquals(3, stats.framesBy("node-a") + stats.framesBy("node-b"));
        assertTrue(store.has("intro", 3));
    }
}
