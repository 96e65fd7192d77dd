package racelens.agent;

import java.lang.instrument.Instrumentation;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import racelens.agent.instrument.Transformer;

/**
 * The {@code -javaagent} entry point. Options: {@code port=<n>,token=<t>,instrument=<p1>:<p2>...}
 * (optional {@code sync=<p1>:<p2>...}: library jars and folders whose synchronization and time
 * come under control, without scheduling points at their field accesses)
 * (optional {@code timeout=<ms>}: wall-clock limit of one execution, default 10000;
 * {@code statics=keep}: executions share the static fields of application classes instead of
 * starting from their initial values).
 */
public final class Agent {
    private Agent() {}

    public static volatile Map<String, String> options;
    public static volatile Instrumentation instrumentation;
    public static volatile List<String> instrumentPaths = List.of();
    /** Set when premain could not set up (reported by the harness as SETUP_ERROR). */
    public static volatile String setupError;

    static final String COMMON_PARALLELISM = "java.util.concurrent.ForkJoinPool.common.parallelism";

    public static void premain(String args, Instrumentation inst) {
        instrumentation = inst;
        Map<String, String> opts = parse(args);
        options = opts;
        List<String> paths = pathList(opts.getOrDefault("instrument", ""));
        instrumentPaths = paths;
        // `statics=keep`: executions share the statics of application classes (no re-initialisation).
        if ("keep".equals(opts.get("statics"))) {
            racelens.agent.instrument.Transformer.keepStatics();
        }
        // The JDK's common fork/join pool without threads: parallel streams (and other JDK code
        // that forks there) run all their work in the calling thread, under control. The
        // controller passes it on the command line too; a launch without it gets it here, before
        // anything has created the common pool.
        if (System.getProperty(COMMON_PARALLELISM) == null) {
            System.setProperty(COMMON_PARALLELISM, "0");
        }
        try {
            openJavaBase(inst);
            inst.addTransformer(new Transformer(paths, pathList(opts.getOrDefault("sync", ""))), true);
            inst.retransformClasses(Thread.class);
            if (!Transformer.ERRORS.isEmpty()) {
                setupError = "cannot patch java.lang.Thread: " + Transformer.ERRORS.get(0);
            }
        } catch (Throwable t) {
            setupError = "agent set-up failed: " + t;
        }
    }

    /**
     * Opens java.lang, java.util and java.util.concurrent to racelens (reflection on JDK
     * internals: threads, TimerTask's state, ForkJoinTask's doExec).
     */
    private static void openJavaBase(Instrumentation inst) {
        Module base = Object.class.getModule();
        Module me = Agent.class.getModule();
        Map<String, Set<Module>> opens = new HashMap<>();
        opens.put("java.lang", Set.of(me));
        opens.put("java.util", Set.of(me));
        opens.put("java.util.concurrent", Set.of(me));
        inst.redefineModule(base, Set.of(), Map.of(), opens, Set.of(), Map.of());
    }

    private static List<String> pathList(String joined) {
        List<String> paths = new ArrayList<>();
        for (String p : joined.split(java.io.File.pathSeparator)) {
            if (!p.isEmpty()) {
                paths.add(p);
            }
        }
        return paths;
    }

    /** Options whose value is a list of paths, which may hold ',': it ends at the next known option. */
    private static final String[] KEYS = {",port=", ",token=", ",timeout=", ",statics=", ",sync=", ",instrument="};

    static Map<String, String> parse(String args) {
        Map<String, String> m = new HashMap<>();
        if (args == null) {
            return m;
        }
        // instrument= is last by convention and may contain ',' in paths only if nothing follows
        int idx = 0;
        while (idx < args.length()) {
            int eq = args.indexOf('=', idx);
            if (eq < 0) {
                break;
            }
            String key = args.substring(idx, eq);
            int end;
            if (key.equals("instrument") || key.equals("sync")) {
                // up to the next ",key=" of a known option, else to the end
                end = args.length();
                for (String k : KEYS) {
                    int at = args.indexOf(k, eq);
                    if (at >= 0 && at < end) {
                        end = at;
                    }
                }
            } else {
                end = args.indexOf(',', eq);
                if (end < 0) {
                    end = args.length();
                }
            }
            m.put(key, args.substring(eq + 1, end));
            idx = end + 1;
        }
        return m;
    }
}
