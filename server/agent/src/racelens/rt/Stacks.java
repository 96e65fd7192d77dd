package racelens.rt;

import java.util.HashMap;
import java.util.Map;

/**
 * Interned application stacks for the {@code stacks} RUN option: {@code K <id> <frames>} is
 * announced once per JVM, before the first D line that uses the id.
 */
final class Stacks {
    private Stacks() {}

    private static final Map<String, Integer> IDS = new HashMap<>();

    /** Stack id of thread {@code t} (the caller itself when {@code self}); announces new ones into {@code out}. */
    static int of(TS t, boolean self, StringBuilder out) {
        if (t.stackId >= 0 && !self) {
            return t.stackId;
        }
        // a thread that has not run yet may still be on its way to its first point: no frames
        StackTraceElement[] st = t.pendingSite == 0 ? new StackTraceElement[0]
                : self ? new Throwable().getStackTrace() : t.thread.getStackTrace();
        StringBuilder key = new StringBuilder();
        for (StackTraceElement e : st) {
            if (!Rt.APP_CLASSES.contains(e.getClassName())) {
                continue;
            }
            if (key.length() > 0) {
                key.append('|');
            }
            key.append(e.getClassName()).append(':').append(e.getMethodName()).append(':').append(Math.max(0, e.getLineNumber()));
        }
        String k = key.toString();
        Integer id = IDS.get(k);
        if (id == null) {
            id = IDS.size();
            IDS.put(k, id);
            out.append("K ").append(id).append(' ').append(k).append('\n');
        }
        t.stackId = id;
        return id;
    }
}
