package racelens.rt;

/**
 * Threads racelens does not control that run project code during an execution: threads the
 * JDK started ({@code java.util.Timer}'s, a real thread pool's, the common pool's), threads the
 * test started before the execution (in {@code @BeforeClass}), finalizers. Their steps are not
 * scheduled, so nothing about the execution's schedules can be claimed: the execution ends with
 * outcome {@code uncontrolled}, naming the thread, where it was started and where it ran
 * project code. Never a pass.
 *
 * <p>State: where each thread was started (recorded by the patched {@code Thread.start()}, all
 * threads, a bounded list), and whether this execution already reported one.
 */
final class Uncontrolled {
    private Uncontrolled() {}

    private static final int KEPT = 256;
    private static final java.util.ArrayList<java.lang.ref.WeakReference<Thread>> started = new java.util.ArrayList<>();
    private static final java.util.ArrayList<String> where = new java.util.ArrayList<>();

    /** Called by the patched {@code Thread.start()} of every thread. */
    static void starting(Thread t) {
        String at = startedAt(new Throwable().getStackTrace());
        synchronized (started) {
            if (started.size() >= KEPT) {
                started.remove(0);
                where.remove(0);
            }
            started.add(new java.lang.ref.WeakReference<>(t));
            where.add(at);
        }
    }

    /**
     * The frames that started a thread: the last JDK frame before project code (the library
     * that started it, e.g. {@code java.util.Timer.<init>}), then the first project frame.
     */
    private static String startedAt(StackTraceElement[] stack) {
        String jdk = null;
        for (StackTraceElement e : stack) {
            String c = e.getClassName();
            if (c.startsWith("racelens.") || c.equals("java.lang.Thread")) {
                continue;
            }
            if (Rt.APP_CLASSES.contains(c)) {
                return (jdk == null ? "" : jdk + " called from ") + frame(e);
            }
            jdk = frame(e);
        }
        return jdk == null ? "an unknown place" : jdk;
    }

    private static String frame(StackTraceElement e) {
        String c = e.getClassName();
        return c.substring(c.lastIndexOf('.') + 1) + "." + e.getMethodName() + "(" + (e.getFileName() == null ? "?" : e.getFileName()) + ":" + e.getLineNumber() + ")";
    }

    private static String startOf(Thread t) {
        synchronized (started) {
            for (int i = started.size() - 1; i >= 0; i--) {
                if (started.get(i).get() == t) {
                    return where.get(i);
                }
            }
        }
        return null;
    }

    /** The calling thread, which racelens does not control, reached scheduling point {@code site}. */
    static void ran(int site) {
        if (Sched.over || Sched.harness == null) {
            return; // no execution: the harness's set-up, @BeforeClass, a thread between executions
        }
        Thread me = Thread.currentThread();
        if (me == Sched.harness) {
            return;
        }
        String start = startOf(me);
        String message = "thread \"" + me.getName() + "\"" + (start == null ? " (not started by the test's code: a JVM or JDK thread)" : " (started by " + start + ")")
                + " ran project code at " + Sites.describe(site) + " outside racelens's control";
        Sched.endFromHarness("uncontrolled", message);
    }
}
