package com.renderfarm.jobs;

/** Render frames {@code first..last} of a scene. */
public record RenderJob(String id, String scene, int first, int last) {
    public int frames() {
        return last - first + 1;
    }
}
