package racelens.agent.instrument;

import java.util.ArrayList;
import java.util.List;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.tree.MethodNode;

/**
 * Instruments one application class: a scheduling point (a call into {@code racelens.rt.Rt})
 * before each shared-memory and synchronization operation, and the replacements listed in
 * PROTOCOL.md. Works on each method as a tree so that added exception handlers can be put where
 * they belong in the exception table.
 *
 * <p>This class makes the class-level decisions (what a class gets: object tags, the static
 * reset, a model super class, bridges of method references) in its class visitor; each method
 * body goes to {@link MethodTransform}, which hands every instruction to the rewriter of its
 * concern: {@link MonitorRewriter}, {@link FieldRewriter}, {@link AllocationRewriter}, {@link
 * ThreadCallRewriter}, {@link ConcurrentRedirects}, {@link AtomicCalls}.
 */
public final class Instrumenter {
    private Instrumenter() {}

    static final String RT = "racelens/rt/Rt";
    static final String MODEL = "racelens/rt/model/";

    /**
     * Instruments {@code bytes}; throws on any failure (the caller reports it loudly).
     * {@code syncOnly}: a library class ({@code sync=} paths): only its synchronization and time
     * come under control (monitors and {@code synchronized} methods, wait/notify, thread
     * operations, park, sleep, the {@code java.util.concurrent} models, the logical clock,
     * seeded randomness, {@code System.exit}); its field and array accesses are no scheduling
     * points, its objects are not named, its statics are not reset, its loops are not counted.
     * Why that is enough for a library whose own code is free of data races: two threads'
     * accesses between the same synchronization operations commute (the data-race-free
     * guarantee of the Java memory model, JLS 17.4.5), so the schedules that differ only inside
     * the library's code between them are equivalent to one that runs.
     */
    public static byte[] instrument(byte[] bytes, ClassLoader loader, boolean syncOnly) {
        ClassInfo.remember(bytes, loader);
        ClassReader reader = new ClassReader(bytes);
        ClassWriter writer = new FrameWriter(reader, ClassWriter.COMPUTE_FRAMES, loader);
        reader.accept(new ClassAdapter(writer, loader, syncOnly), ClassReader.SKIP_FRAMES);
        return writer.toByteArray();
    }

    /** The field and methods of {@code racelens.rt.Tagged} added to application classes. */
    static final String TAG = "$racelens$tag";

    static final class ClassAdapter extends ClassVisitor {
        final ClassLoader loader;
        /** A library class: synchronization and time only (see {@link #instrument}). */
        final boolean syncOnly;
        String className;
        String dotted;
        String superName;
        int version;
        /** A class (not an interface or annotation): it gets an object number for the trace. */
        boolean tagged;
        /** Its statics are re-initialised in every execution ({@link StaticReset}). */
        boolean reset;
        /** The super class when it is reset too, else null. */
        String resettableSuper;
        /** Its static fields the reset sets back to their defaults. */
        final List<StaticReset.StaticField> statics = new ArrayList<>();
        boolean hasClinit;
        boolean isInterface;
        /** Bridges of method references ({@link MethodRefs}), added at the end. */
        final List<MethodNode> bridges = new ArrayList<>();

        ClassAdapter(ClassVisitor cv, ClassLoader loader, boolean syncOnly) {
            super(Opcodes.ASM9, cv);
            this.loader = loader;
            this.syncOnly = syncOnly;
        }

        @Override
        public void visit(int version, int access, String name, String signature, String superName, String[] interfaces) {
            this.className = name;
            this.dotted = name.replace('/', '.');
            this.version = version;
            String model = ConcurrentRedirects.MODELS.get(superName);
            if (model != null && !name.startsWith("racelens/")) {
                superName = model;
            }
            this.superName = superName;
            this.tagged = !syncOnly && (access & (Opcodes.ACC_INTERFACE | Opcodes.ACC_MODULE)) == 0;
            this.isInterface = (access & Opcodes.ACC_INTERFACE) != 0;
            this.reset = !syncOnly && StaticReset.applies(access, name, superName, loader);
            this.resettableSuper = reset && superName != null && StaticReset.isResettable(superName, loader) ? superName : null;
            if (tagged) {
                String[] more = java.util.Arrays.copyOf(interfaces == null ? new String[0] : interfaces, interfaces == null ? 1 : interfaces.length + 1);
                more[more.length - 1] = "racelens/rt/Tagged";
                interfaces = more;
            }
            super.visit(version, access, name, signature, superName, interfaces);
        }

        /**
         * A static field without a constant value is set back by the reset: outside {@code
         * <clinit>} only a field that is not final may be written, so it loses {@code final}
         * (which fields were final is read from the original class file: they stay free of
         * scheduling points).
         */
        @Override
        public org.objectweb.asm.FieldVisitor visitField(int access, String name, String descriptor, String signature, Object value) {
            if (reset && (access & Opcodes.ACC_STATIC) != 0 && value == null) {
                statics.add(new StaticReset.StaticField(name, descriptor));
                access &= ~Opcodes.ACC_FINAL;
            }
            return super.visitField(access, name, descriptor, signature, value);
        }

        /** {@code racelens.rt.Tagged}: a private transient field and its accessors, synthetic. */
        @Override
        public void visitEnd() {
            for (MethodNode bridge : bridges) {
                MethodVisitor target = super.visitMethod(bridge.access, bridge.name, bridge.desc, null, null);
                new MethodTransform(this, bridge).run();
                bridge.accept(target);
            }
            if (reset) {
                StaticReset.addMembers(cv, className, resettableSuper, statics, hasClinit);
            }
            if (tagged) {
                int synthetic = Opcodes.ACC_SYNTHETIC;
                super.visitField(Opcodes.ACC_PRIVATE | Opcodes.ACC_TRANSIENT | synthetic, TAG, "J", null, null).visitEnd();
                MethodVisitor get = super.visitMethod(Opcodes.ACC_PUBLIC | synthetic, TAG, "()J", null, null);
                get.visitCode();
                get.visitVarInsn(Opcodes.ALOAD, 0);
                get.visitFieldInsn(Opcodes.GETFIELD, className, TAG, "J");
                get.visitInsn(Opcodes.LRETURN);
                get.visitMaxs(0, 0);
                get.visitEnd();
                MethodVisitor set = super.visitMethod(Opcodes.ACC_PUBLIC | synthetic, TAG, "(J)V", null, null);
                set.visitCode();
                set.visitVarInsn(Opcodes.ALOAD, 0);
                set.visitVarInsn(Opcodes.LLOAD, 1);
                set.visitFieldInsn(Opcodes.PUTFIELD, className, TAG, "J");
                set.visitInsn(Opcodes.RETURN);
                set.visitMaxs(0, 0);
                set.visitEnd();
            }
            super.visitEnd();
        }

        @Override
        public MethodVisitor visitMethod(int access, String name, String descriptor, String signature, String[] exceptions) {
            if ((access & (Opcodes.ACC_ABSTRACT | Opcodes.ACC_NATIVE)) != 0) {
                return super.visitMethod(access, name, descriptor, signature, exceptions);
            }
            int newAccess = access & ~Opcodes.ACC_SYNCHRONIZED;
            MethodVisitor target = super.visitMethod(newAccess, name, descriptor, signature, exceptions);
            ClassAdapter self = this;
            boolean clinit = name.equals("<clinit>");
            hasClinit |= clinit;
            return new MethodNode(Opcodes.ASM9, access, name, descriptor, signature, exceptions) {
                @Override
                public void visitEnd() {
                    if (clinit && reset) {
                        // The copy the reset runs, instrumented as the original is.
                        MethodNode copy = StaticReset.copyOf(this, StaticReset.CLINIT_COPY, Opcodes.ACC_PRIVATE | Opcodes.ACC_STATIC | Opcodes.ACC_SYNTHETIC);
                        new MethodTransform(self, copy).run();
                        copy.accept(self.cv.visitMethod(copy.access, copy.name, copy.desc, null, null));
                    }
                    new MethodTransform(self, this).run();
                    if (clinit && reset) {
                        instructions.insert(StaticReset.epochStore(className));
                    }
                    this.access = newAccess;
                    accept(target);
                }
            };
        }
    }
}
