package com.renderfarm.jobs;

import java.util.concurrent.ConcurrentHashMap;

/** Rendered frames by "scene/frame", as uploaded by the nodes. */
public class FrameStore {
    private final ConcurrentHashMap<String, String> frames = new ConcurrentHashMap<>();

    public void upload(String scene, int frame, String checksum) {
        String old = frames.putIfAbsent(scene + "/" + frame, checksum);
        if (old != null && !old.equals(checksum)) {
            throw new IllegalStateException("frame " + scene + "/" + frame + " rendered twice differently");
        }
    }

    public int count() {
        return frames.size();
    }

    public boolean has(String scene, int frame) {
        return frames.containsKey(scene + "/" + frame);
    }
}
