package racelens.rt;

import java.util.IdentityHashMap;

/**
 * The protocol lines of one execution (PROTOCOL.md): {@code SITE}/{@code K} and {@code THREAD}
 * lines, the trace ({@code D}, {@code E}, {@code B}), the detail lines before {@code END}, and
 * the text they are made of: thread masks, per-execution object labels, the values of
 * {@code E} lines, escaping. Also the debug event log ({@code -Dracelens.check=true}).
 *
 * <p>State: the line buffers, the object labels, the {@code E} line waiting for its value, the
 * event log. Written by the running controlled thread only (the harness reads the buffers in
 * {@link #response} once the execution is over).
 */
final class Lines {
    private Lines() {}

    static final StringBuilder body = new StringBuilder(1 << 14);
    static final StringBuilder threadLines = new StringBuilder(256);
    static final StringBuilder siteLines = new StringBuilder(1024);
    static final StringBuilder details = new StringBuilder(1024);

    static IdentityHashMap<Object, String> labels = new IdentityHashMap<>();
    static int labelSeq;

    /** The thread whose E line waits for its value (full mode). */
    static TS valueOf;

    /** Debug (-Dracelens.check=true): the event log below, and the scheduler's invariant checks. */
    static final boolean CHECK = Boolean.getBoolean("racelens.check");

    /** Debug event log of the current execution (-Dracelens.check=true), printed by {@link #dumpLog}. */
    static final java.util.concurrent.ConcurrentLinkedQueue<String> LOG = new java.util.concurrent.ConcurrentLinkedQueue<>();

    /** A new execution whose thread 0 is {@code t0}: empty buffers, no labels, SITE 0, THREAD 0. */
    static void reset(Thread t0) {
        labels = new IdentityHashMap<>();
        labelSeq = 0;
        valueOf = null;
        body.setLength(0);
        threadLines.setLength(0);
        siteLines.setLength(0);
        details.setLength(0);
        sequential.clear();
        LOG.clear();
        Sites.announce(0, siteLines);
        threadLine(0, t0);
    }

    static void threadLine(int id, Thread t) {
        threadLines.append("THREAD ").append(id).append(' ').append(esc(t.getName())).append('\n');
    }

    /** SITE and THREAD lines, trace, details; the caller adds END. */
    static void response(StringBuilder out) {
        out.append(siteLines).append(threadLines).append(body);
        Trace.write(out, Sched.threads);
        out.append(details);
    }

    /** Appends detail lines (the harness formats failures). */
    static void detail(String line) {
        details.append(line).append('\n');
    }

    /** Sites of this execution's parallel streams that ran sequentially (said once each). */
    private static final java.util.BitSet sequential = new java.util.BitSet();

    static void sequential(int site) {
        if (!sequential.get(site)) {
            sequential.set(site);
            Sites.announce(site, siteLines);
            detail("SEQUENTIAL " + site);
        }
    }

    // =====================================================================================
    // Trace lines

    /** The E line of a scheduling point (full mode); an access's value hook completes it. */
    static void appendE(TS s, int site, Object o) {
        flushE();
        body.append("E ").append(Sched.steps).append(' ').append(s.id).append(' ').append(site).append(' ')
                .append(o == null ? "-" : label(o));
        Sites.announce(site, siteLines);
        String op = Sites.op[site];
        if (op.equals("READ") || op.equals("WRITE") || op.equals("AREAD") || op.equals("AWRITE")) {
            valueOf = s; // the value hook right after completes the line
        } else {
            body.append(" -\n");
        }
    }

    static void flushE() {
        if (valueOf != null) {
            valueOf = null;
            body.append(" -\n");
        }
    }

    static boolean wantsValue() {
        TS v = valueOf;
        return v != null && v.thread == Thread.currentThread() && v == Sched.current;
    }

    static void putValue(String v) {
        valueOf = null;
        body.append(' ');
        if (v.length() > 40) {
            v = v.substring(0, 40);
        }
        body.append(esc(v)).append('\n');
    }

    /** The text of an object value in an E line. */
    static String valueText(Object v) {
        return v == null ? "null" : v instanceof String ? (String) v : v instanceof Number || v instanceof Boolean
                || v instanceof Character ? v.toString() : label(v);
    }

    static void appendD(int thread, int site, String choiceMask, int running) {
        flushE();
        // A notify decision happens during the notify's step, which is already counted.
        int step = choiceMask == null ? Sched.steps : Sched.steps - 1;
        body.append("D ").append(step).append(' ').append(thread).append(' ').append(site).append(' ');
        enabledMask(body);
        body.append(' ').append(choiceMask == null ? "-" : choiceMask).append(' ');
        if (running < 0) {
            body.append('-');
        } else {
            body.append(running);
        }
        body.append(' ');
        // pending sites of the enabled threads (or of the candidates of a notify decision)
        boolean firstOne = true;
        Sites.announce(site, siteLines);
        for (TS t : Sched.threads) {
            if (choiceMask == null ? t.enabled : t.blocker instanceof Monitors.Notified && ((Monitors.Notified) t.blocker).candidate) {
                if (!firstOne) {
                    body.append(',');
                }
                firstOne = false;
                body.append(t.id).append(':').append(t.pendingSite);
                Sites.announce(t.pendingSite, siteLines);
                if (Sched.stacks) {
                    body.append(':').append(Stacks.of(t, t == Sched.current, siteLines));
                }
            }
        }
        if (firstOne) {
            body.append('-');
        }
        body.append('\n');
    }

    static void appendB(TS s, String reason) {
        flushE();
        body.append("B ").append(Sched.steps).append(' ').append(s.id).append(' ').append(reason).append('\n');
    }

    static String enabledMask() {
        StringBuilder sb = new StringBuilder();
        enabledMask(sb);
        return sb.toString();
    }

    private static void enabledMask(StringBuilder out) {
        mask(out, false);
    }

    /** Hex bit mask of enabled threads (or of notify candidates). */
    static void mask(StringBuilder out, boolean candidates) {
        TS[] ts = Sched.threads;
        int digits = Math.max(1, (ts.length + 3) / 4);
        boolean leading = true;
        for (int dgt = digits - 1; dgt >= 0; dgt--) {
            int v = 0;
            for (int b = 3; b >= 0; b--) {
                int i = dgt * 4 + b;
                if (i < ts.length) {
                    TS t = ts[i];
                    boolean on = candidates ? t.blocker instanceof Monitors.Notified && ((Monitors.Notified) t.blocker).candidate : t.enabled;
                    if (on) {
                        v |= 1 << b;
                    }
                }
            }
            if (v == 0 && leading && dgt > 0) {
                continue;
            }
            leading = false;
            out.append(Character.forDigit(v, 16));
        }
    }

    /**
     * Per-execution label of an object: simple class name, then its birth ({@link Trace}): {@code
     * @k} for thread 0's k-th object, {@code @T2.k} for thread 2's; the same in every schedule
     * that makes it, so that a report and a replay of its schedule name it alike. Objects born
     * elsewhere (in the JDK) get {@code #n}, in order of first sight in this execution.
     */
    static String label(Object o) {
        if (o == null) {
            return "null";
        }
        String l = labels.get(o);
        if (l == null) {
            String n = o.getClass().getName();
            int lambda = n.indexOf("$$Lambda");
            if (lambda >= 0) {
                n = "Lambda";
            } else {
                n = n.substring(n.lastIndexOf('.') + 1);
            }
            int birth = Trace.birthName(o);
            int t = (birth >>> 20) - 1;
            int k = birth & ((1 << 20) - 1);
            l = birth == 0 ? n + "#" + (++labelSeq) : t == 0 ? n + "@" + k : n + "@T" + t + "." + k;
            labels.put(o, l);
        }
        return l;
    }

    static String esc(String s) {
        if (s == null) {
            return "";
        }
        if (s.indexOf('\n') < 0 && s.indexOf('\\') < 0 && s.indexOf('\r') < 0) {
            return s;
        }
        return s.replace("\\", "\\\\").replace("\r", "").replace("\n", "\\n");
    }

    // =====================================================================================
    // The debug event log

    static void log(String what) {
        if (CHECK) {
            LOG.add(System.nanoTime() % 100_000_000 + " " + Thread.currentThread().getName() + " " + what + " step=" + Sched.steps
                    + " turn=" + Sched.turn + " current=" + Sched.current);
        }
    }

    static void dumpLog() {
        System.err.print(appendLog(new StringBuilder("racelens event log of the last execution:\n")));
    }

    private static StringBuilder appendLog(StringBuilder sb) {
        for (String l : LOG) {
            sb.append("  ").append(l).append('\n');
        }
        return sb;
    }

    /**
     * Debug: writes the thread states and the event log of this execution to
     * {@code racelens-<pid>-<epoch>.log} in the temp folder (the JVM's stderr is not shown).
     */
    static void dumpLogTo(String why) {
        StringBuilder sb = new StringBuilder(why).append('\n');
        for (TS t : Sched.threads) {
            sb.append(t).append(t.finished ? " finished" : "").append(" blocker=")
                    .append(t.blocker == null ? "-" : t.blocker.describe(t)).append(" state=").append(t.thread.getState()).append('\n');
        }
        appendLog(sb);
        try {
            java.nio.file.Files.writeString(java.nio.file.Path.of(System.getProperty("java.io.tmpdir"),
                    "racelens-" + ProcessHandle.current().pid() + "-" + Rt.epoch + ".log"), sb);
        } catch (java.io.IOException | RuntimeException e) {
            System.err.println("racelens: cannot write the debug log: " + e);
        }
    }
}
