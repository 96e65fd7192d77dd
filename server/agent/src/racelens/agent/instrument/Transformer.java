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
 * Instruments application classes (code source among the {@code instrument=} paths) and patches
 * {@code java.lang.Thread}. A failure is never a silent skip: it is recorded, and the harness
 * reports it (SETUP_ERROR before READY, outcome {@code error} afterwards).
 */
public final class Transformer implements ClassFileTransformer {
    private final Set<String> roots = new HashSet<>();
    /** Instrumentation failures, in order ("class: message"). */
    public static final List<String> ERRORS = Collections.synchronizedList(new ArrayList<>());
    public static volatile int instrumented;

    public Transformer(List<String> paths) {
        for (String p : paths) {
            if (!p.isEmpty()) {
                roots.add(canonical(new File(p)));
            }
        }
    }

    static String canonical(File f) {
        try {
            return f.getCanonicalPath();
        } catch (java.io.IOException e) {
            return f.getAbsolutePath();
        }
    }

    boolean isApplication(ProtectionDomain pd) {
        if (pd == null) {
            return false;
        }
        CodeSource cs = pd.getCodeSource();
        if (cs == null) {
            return false;
        }
        URL url = cs.getLocation();
        if (url == null || !"file".equals(url.getProtocol())) {
            return false;
        }
        return known.computeIfAbsent(url.toString(), u -> {
            try {
                return roots.contains(canonical(new File(new URI(u))));
            } catch (Exception e) {
                return roots.contains(canonical(new File(url.getPath())));
            }
        });
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
            if (className.startsWith("racelens/") || loader == null || !isApplication(pd)) {
                return null;
            }
            byte[] out = Instrumenter.instrument(bytes, loader);
            Rt.APP_CLASSES.add(className.replace('/', '.'));
            instrumented++;
            return out;
        } catch (Throwable t) {
            String msg = className.replace('/', '.') + ": " + t;
            ERRORS.add(msg);
            System.err.println("racelens: cannot instrument " + msg);
            return null;
        }
    }
}
