package racelens.rt;

/**
 * The table of scheduling-point sites. Sites are registered at instrumentation time (any thread,
 * hence synchronized) and announced to the controller on first use.
 */
public final class Sites {
    private Sites() {}

    static String[] cls = new String[1024];
    static String[] method = new String[1024];
    static int[] line = new int[1024];
    static String[] op = new String[1024];
    static String[] target = new String[1024];
    static boolean[] announced = new boolean[1024];
    static int count = 1;

    static {
        cls[0] = "-";
        method[0] = "-";
        op[0] = "BEGIN";
        target[0] = "-";
    }

    public static synchronized int register(String c, String m, int ln, String o, String t) {
        int id = count;
        if (id == cls.length) {
            int n = id * 2;
            cls = java.util.Arrays.copyOf(cls, n);
            method = java.util.Arrays.copyOf(method, n);
            line = java.util.Arrays.copyOf(line, n);
            op = java.util.Arrays.copyOf(op, n);
            target = java.util.Arrays.copyOf(target, n);
            announced = java.util.Arrays.copyOf(announced, n);
        }
        cls[id] = c;
        method[id] = m;
        line[id] = ln;
        op[id] = o;
        target[id] = t == null || t.isEmpty() ? "-" : t;
        count = id + 1;
        return id;
    }

    /** Appends a SITE line for {@code id} if it has not been announced in this JVM yet. */
    static void announce(int id, StringBuilder out) {
        boolean[] a = announced;
        if (id >= 0 && id < a.length && a[id]) {
            return;
        }
        announceLocked(id, out);
    }

    private static synchronized void announceLocked(int id, StringBuilder out) {
        if (id < 0 || id >= count || announced[id]) {
            return;
        }
        announced[id] = true;
        out.append("SITE ").append(id).append(' ').append(cls[id]).append(' ').append(method[id]).append(' ')
                .append(line[id]).append(' ').append(op[id]).append(' ').append(target[id]).append('\n');
    }

    public static synchronized String describe(int id) {
        if (id <= 0 || id >= count) {
            return "thread start";
        }
        return cls[id] + "." + method[id] + ":" + line[id] + " " + op[id] + " " + target[id];
    }
}
