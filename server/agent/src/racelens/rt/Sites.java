package racelens.rt;

/**
 * The table of scheduling-point sites. Sites are registered at instrumentation time (any thread,
 * hence synchronized) and announced to the controller on first use. For the {@link Trace}: the
 * kind of access of each site, the number of the field it accesses (one per field, whatever
 * the site), and flags about its callee computed on first use.
 */
public final class Sites {
    private Sites() {}

    /** Kinds of site the trace distinguishes; every other operation is {@link #K_OP}. */
    static final byte K_OP = 0, K_READ = 1, K_WRITE = 2, K_AREAD = 3, K_AWRITE = 4, K_CALL = 5, K_LOCK = 6, K_JOIN = 7;
    /** Flags of {@link #flag}. */
    static final int F_READER = 0, F_PURE_STATIC = 1, F_ADDER = 2;

    static byte[] kinds = new byte[1024];
    /** The field of a READ/WRITE site, numbered per field name. */
    static int[] field = new int[1024];
    /** Per flag two bits: computed, value. */
    static byte[] flags = new byte[1024];
    /** A CALL site whose result the code drops (or a void method), as the instrumenter saw it. */
    static boolean[] resultUnused = new boolean[1024];
    private static final java.util.HashMap<String, Integer> FIELDS = new java.util.HashMap<>();

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
            kinds = java.util.Arrays.copyOf(kinds, n);
            field = java.util.Arrays.copyOf(field, n);
            flags = java.util.Arrays.copyOf(flags, n);
            resultUnused = java.util.Arrays.copyOf(resultUnused, n);
        }
        cls[id] = c;
        method[id] = m;
        line[id] = ln;
        op[id] = o;
        target[id] = t == null || t.isEmpty() ? "-" : t;
        kinds[id] = kindOf(o);
        if (o.equals("READ") || o.equals("WRITE")) {
            field[id] = FIELDS.computeIfAbsent(target[id], f -> FIELDS.size());
        }
        count = id + 1;
        return id;
    }

    /** Marks CALL site {@code id} as one whose result no one uses (see {@link Pure#commutes}). */
    public static synchronized void resultUnused(int id) {
        resultUnused[id] = true;
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

    private static byte kindOf(String op) {
        switch (op) {
            case "READ": return K_READ;
            case "WRITE": return K_WRITE;
            case "AREAD": return K_AREAD;
            case "AWRITE": return K_AWRITE;
            case "CALL": return K_CALL;
            case "LOCK": return K_LOCK;
            case "JOIN": return K_JOIN;
            default: return K_OP;
        }
    }

    static byte kind(int id) {
        return kinds[id];
    }

    /** The simple name of the method a CALL site calls. */
    static String callee(int id) {
        String t = target[id];
        return t.substring(t.lastIndexOf('.') + 1);
    }

    /** Flag {@code f} of site {@code id}, computed by {@code compute} the first time. */
    static boolean flag(int id, int f, java.util.function.BooleanSupplier compute) {
        int known = 1 << (2 * f);
        int value = 2 << (2 * f);
        byte b = flags[id];
        if ((b & known) == 0) {
            b |= known;
            if (compute.getAsBoolean()) {
                b |= value;
            }
            flags[id] = b;
        }
        return (b & value) != 0;
    }
}
