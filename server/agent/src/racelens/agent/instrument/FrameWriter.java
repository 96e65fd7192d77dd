package racelens.agent.instrument;

import java.util.HashSet;
import java.util.Set;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassWriter;

/** A ClassWriter whose common-super-class lookup reads class files through the right loader. */
final class FrameWriter extends ClassWriter {
    private final ClassLoader loader;

    FrameWriter(ClassReader reader, int flags, ClassLoader loader) {
        super(reader, flags);
        this.loader = loader;
    }

    @Override
    protected String getCommonSuperClass(String a, String b) {
        if (a.equals(b)) {
            return a;
        }
        Set<String> supersOfA = new HashSet<>();
        String x = a;
        for (int i = 0; x != null && i < 64; i++) {
            ClassInfo info = ClassInfo.of(x, loader);
            if (info == null) {
                return "java/lang/Object";
            }
            if (info.isInterface()) {
                return "java/lang/Object";
            }
            supersOfA.add(x);
            x = info.superName;
        }
        String y = b;
        for (int i = 0; y != null && i < 64; i++) {
            if (supersOfA.contains(y)) {
                return y;
            }
            ClassInfo info = ClassInfo.of(y, loader);
            if (info == null || info.isInterface()) {
                return "java/lang/Object";
            }
            y = info.superName;
        }
        return "java/lang/Object";
    }

    @Override
    protected ClassLoader getClassLoader() {
        return loader;
    }
}
