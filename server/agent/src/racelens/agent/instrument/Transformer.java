package racelens.agent.instrument;

import java.io.File;
import java.lang.instrument.ClassFileTransformer;
import java.net.URI;
import java.net.URL;
import java.security.CodeSource;
import java.security.ProtectionDomain;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import racelens.rt.Rt;

/**
 * Instruments application classes (code source among the {@code instrument=} paths), the
 * synchronization of library classes (among the {@code sync=} paths) and patches
 * {@code java.lang.Thread}. A failure is never a silent skip: it is recorded, and the harness
 * reports it (SETUP_ERROR before READY, outcome {@code error} afterwards).
 */
public final class Transformer implements ClassFileTransformer {
    private final Set<String> roots = new HashSet<>();
    /** Library jars and folders whose synchronization comes under control ({@code sync=}). */
    private final Set<String> syncRoots = new HashSet<>();
    /** Instrumentation failures, in order ("class: message"). */
    public static final List<String> ERRORS = Collections.synchronizedList(new ArrayList<>());
    public static volatile int instrumented;

    /** Executions share the statics of application classes ({@link StaticReset} off). */
    public static void keepStatics() {
        StaticReset.enabled = false;
    }

    /** Whether each execution starts from the initial values of application classes' statics. */
    public static boolean resetsStatics() {
        return StaticReset.enabled;
    }

    /** The transformer the agent installed (for questions about other classes). */
    private static volatile Transformer active;

    public Transformer(List<String> paths, List<String> syncPaths) {
        for (String p : paths) {
            if (!p.isEmpty()) {
                roots.add(canonical(new File(p)));
            }
        }
        for (String p : syncPaths) {
            if (!p.isEmpty()) {
                syncRoots.add(canonical(new File(p)));
            }
        }
        active = this;
    }

    static String canonical(File f) {
        try {
            return f.getCanonicalPath();
        } catch (java.io.IOException e) {
            return f.getAbsolutePath();
        }
    }

    boolean isApplication(ProtectionDomain pd) {
        String location = location(pd);
        return location != null && isRoot(location);
    }

    /** A class of a library whose synchronization racelens controls ({@code sync=}). */
    boolean isSyncLibrary(ProtectionDomain pd) {
        String location = location(pd);
        return location != null && !syncRoots.isEmpty() && knownSync.computeIfAbsent(location, u -> {
            try {
                return syncRoots.contains(canonical(new File(new URI(u))));
            } catch (Exception e) {
                return false;
            }
        });
    }

    /** Where a class was loaded from, as a {@code file:} URL; null otherwise. */
    private static String location(ProtectionDomain pd) {
        CodeSource cs = pd == null ? null : pd.getCodeSource();
        URL url = cs == null ? null : cs.getLocation();
        return url == null || !"file".equals(url.getProtocol()) ? null : url.toString();
    }

    private final java.util.Map<String, Boolean> knownSync = new java.util.concurrent.ConcurrentHashMap<>();

    /** Whether the code source at {@code location} (a {@code file:} URL) is an instrumented path. */
    private boolean isRoot(String location) {
        return known.computeIfAbsent(location, u -> {
            try {
                return roots.contains(canonical(new File(new URI(u))));
            } catch (Exception e) {
                return false;
            }
        });
    }

    /**
     * Whether the class {@code name} (internal name) that {@code loader} finds comes from an
     * instrumented path, told from where its class file is, without loading it.
     */
    static boolean isApplicationClass(String name, ClassLoader loader) {
        Transformer t = active;
        URL url = t == null || loader == null ? null : loader.getResource(name + ".class");
        if (url == null) {
            return false;
        }
        String u = url.toString();
        switch (url.getProtocol()) {
            case "file": {
                String file = name + ".class";
                return u.endsWith(file) && t.isRoot(u.substring(0, u.length() - file.length()));
            }
            case "jar": {
                int bang = u.indexOf("!/");
                return u.startsWith("jar:") && bang > 0 && t.isRoot(u.substring(4, bang));
            }
            default:
                return false;
        }
    }

    /** Code-source location → application or not. */
    private final java.util.Map<String, Boolean> known = new java.util.concurrent.ConcurrentHashMap<>();

    @Override
    public byte[] transform(Module module, ClassLoader loader, String className, Class<?> redefined,
            ProtectionDomain pd, byte[] bytes) {
        if (className == null) {
            return null;
        }
        try {
            if (className.equals("java/lang/Thread")) {
                return ThreadPatch.patch(bytes);
            }
            if (className.startsWith("racelens/") || loader == null) {
                return null;
            }
            if (isApplication(pd)) {
                byte[] out = Instrumenter.instrument(bytes, loader, false);
                Rt.APP_CLASSES.add(className.replace('/', '.'));
                instrumented++;
                return out;
            }
            if (isSyncLibrary(pd)) {
                return Instrumenter.instrument(bytes, loader, true);
            }
            return null;
        } catch (Throwable t) {
            String msg = className.replace('/', '.') + ": " + t;
            ERRORS.add(msg);
            System.err.println("racelens: cannot instrument " + msg);
            return null;
        }
    }
}
