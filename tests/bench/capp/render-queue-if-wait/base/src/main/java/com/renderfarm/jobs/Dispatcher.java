package com.renderfarm.jobs;

import java.util.List;

/** Splits scenes into jobs of at most {@code chunk} frames and queues them. */
public class Dispatcher {
    private final JobQueue queue;
    private final int chunk;
    private int jobCounter;

    public Dispatcher(JobQueue queue, int chunk) {
        this.queue = queue;
        this.chunk = chunk;
    }

    /** A scene and its frame count. */
    public record Scene(String name, int frames) {
    }

    public int dispatch(List<Scene> scenes) {
        int jobs = 0;
        for (Scene s : scenes) {
            for (int first = 1; first <= s.frames(); first += chunk) {
                int last = Math.min(s.frames(), first + chunk - 1);
                String id;
                synchronized (this) {
                    id = s.name() + "#" + (++jobCounter);
                }
                queue.submit(new RenderJob(id, s.name(), first, last));
                jobs++;
            }
        }
        queue.close();
        return jobs;
    }
}
