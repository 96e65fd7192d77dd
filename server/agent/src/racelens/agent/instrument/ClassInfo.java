package racelens.agent.instrument;

import java.io.IOException;
import java.io.InputStream;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.FieldVisitor;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * What the instrumentation needs to know about other classes (super class, interfaces, final
 * fields), read from class files through the class loader being transformed, never by loading
 * classes (loading during a transformation recurses and may load through the wrong loader).
 */
final class ClassInfo {
    final String name;
    final String superName;
    final String[] interfaces;
    final int access;
    final Map<String, Integer> fields;
    /** The methods it declares, as name + descriptor, with their access flags. */
    final Map<String, Integer> methods;

    private ClassInfo(String name, String superName, String[] interfaces, int access, Map<String, Integer> fields, Map<String, Integer> methods) {
        this.name = name;
        this.superName = superName;
        this.interfaces = interfaces;
        this.access = access;
        this.fields = fields;
        this.methods = methods;
    }

    boolean isInterface() {
        return (access & Opcodes.ACC_INTERFACE) != 0;
    }

    private static final ClassInfo MISSING = new ClassInfo("?", null, new String[0], 0, Map.of(), Map.of());
    /** Per class loader (weakly; identity hash codes are all equal under -XX:hashCode=2, equality is identity). */
    private static final Map<ClassLoader, Map<String, ClassInfo>> CACHE =
            java.util.Collections.synchronizedMap(new java.util.WeakHashMap<>());
    private static final Map<String, ClassInfo> BOOT = new ConcurrentHashMap<>();

    private static Map<String, ClassInfo> cache(ClassLoader loader) {
        return loader == null ? BOOT : CACHE.computeIfAbsent(loader, l -> new ConcurrentHashMap<>());
    }

    /** Info about {@code name} (internal name) or null when its class file cannot be found. */
    static ClassInfo of(String name, ClassLoader loader) {
        Map<String, ClassInfo> c = cache(loader);
        ClassInfo info = c.get(name);
        if (info == null) {
            info = read(name, loader);
            c.put(name, info);
        }
        return info == MISSING ? null : info;
    }

    /** Remembers the class being transformed (its file may not be readable as a resource). */
    static void remember(byte[] bytes, ClassLoader loader) {
        ClassInfo info = parse(bytes);
        cache(loader).put(info.name, info);
    }

    private static ClassInfo read(String name, ClassLoader loader) {
        String res = name + ".class";
        try {
            InputStream in = loader != null ? loader.getResourceAsStream(res) : null;
            if (in == null) {
                in = ClassLoader.getSystemResourceAsStream(res);
            }
            if (in == null) {
                in = Object.class.getResourceAsStream("/" + res);
            }
            if (in == null) {
                return MISSING;
            }
            try (InputStream stream = in) {
                return parse(stream.readAllBytes());
            }
        } catch (IOException | RuntimeException e) {
            return MISSING;
        }
    }

    private static ClassInfo parse(byte[] bytes) {
        ClassReader r = new ClassReader(bytes);
        Map<String, Integer> fields = new HashMap<>();
        Map<String, Integer> methods = new HashMap<>();
        String[] header = new String[1];
        int[] acc = new int[1];
        String[][] itf = new String[1][];
        r.accept(new ClassVisitor(Opcodes.ASM9) {
            @Override
            public void visit(int version, int access, String name, String signature, String superName, String[] interfaces) {
                header[0] = superName;
                acc[0] = access;
                itf[0] = interfaces == null ? new String[0] : interfaces;
            }

            @Override
            public FieldVisitor visitField(int access, String name, String descriptor, String signature, Object value) {
                fields.put(name, access);
                return null;
            }

            @Override
            public MethodVisitor visitMethod(int access, String name, String descriptor, String signature, String[] exceptions) {
                methods.put(name + descriptor, access);
                return null;
            }
        }, ClassReader.SKIP_CODE | ClassReader.SKIP_DEBUG | ClassReader.SKIP_FRAMES);
        return new ClassInfo(r.getClassName(), header[0], itf[0], acc[0], fields, methods);
    }

    /** Access flags of field {@code owner.field} (searched in supers and interfaces) or -1. */
    static int fieldAccess(String owner, String field, ClassLoader loader) {
        for (int depth = 0; owner != null && depth < 64; depth++) {
            ClassInfo info = of(owner, loader);
            if (info == null) {
                return -1;
            }
            Integer a = info.fields.get(field);
            if (a != null) {
                return a;
            }
            for (String i : info.interfaces) {
                int ia = fieldAccess(i, field, loader);
                if (ia != -1) {
                    return ia;
                }
            }
            owner = info.superName;
        }
        return -1;
    }

    /**
     * True when a class from {@code name} up to {@code ancestor} (excluded) declares the instance
     * method {@code key} (name + descriptor): a call of it on {@code name} runs that declaration,
     * not {@code ancestor}'s. A class whose file cannot be read counts as declaring it.
     */
    static boolean declaredBelow(String name, String ancestor, String key, ClassLoader loader) {
        for (int depth = 0; name != null && depth < 64 && !name.equals(ancestor); depth++) {
            ClassInfo info = of(name, loader);
            if (info == null) {
                return true;
            }
            Integer access = info.methods.get(key);
            if (access != null && (access & Opcodes.ACC_STATIC) == 0) {
                return true;
            }
            name = info.superName;
        }
        return false;
    }

    /** True when {@code name} is {@code ancestor} or a subclass of it. */
    static boolean isSubclass(String name, String ancestor, ClassLoader loader) {
        for (int depth = 0; name != null && depth < 64; depth++) {
            if (name.equals(ancestor)) {
                return true;
            }
            if (name.equals("java/lang/Object")) {
                return false;
            }
            ClassInfo info = of(name, loader);
            if (info == null) {
                return false;
            }
            name = info.superName;
        }
        return false;
    }
}
