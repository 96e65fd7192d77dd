package racelens.agent.instrument;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.FieldInsnNode;
import org.objectweb.asm.tree.InsnList;
import org.objectweb.asm.tree.InvokeDynamicInsnNode;
import org.objectweb.asm.tree.LabelNode;
import org.objectweb.asm.tree.MethodInsnNode;
import org.objectweb.asm.tree.MethodNode;
import org.objectweb.asm.tree.TryCatchBlockNode;

/**
 * Every execution starts from the program's initial state: the static fields of application
 * classes are back to what their class initialiser makes of them, as in a fresh JVM.
 *
 * <p>How (the lazy re-initialisation of unit-test virtualisation, VMVM, Bell and Kaiser, ICSE
 * 2014): each application class keeps the number of the execution it was last initialised in
 * ({@code $racelens$epoch}), and gets a copy of its {@code <clinit>} ({@code $racelens$clinit})
 * and a {@code $racelens$reinit()} that, the first time it runs in an execution, re-initialises
 * the superclass, sets every static field back to its default value and runs the copy, as the
 * JVM initialises a class. The guard {@code $racelens$reinit()} runs where the JVM would
 * initialise the class: at the entry of its static methods and constructors, and before a
 * static field of it is read or written from elsewhere. The real {@code <clinit>} records its
 * own execution, so that a class first used in execution 5 is initialised once there.
 *
 * <p>Re-initialising lazily, in the order the program touches classes, keeps what an eager
 * reset would break: a class initialiser that reads state the test set before (a property, a
 * configuration field) sees it, as in a fresh JVM.
 *
 * <p>Not reset (said in server/docs/manual/explore.md): interfaces (their fields are constants or set once by
 * their initialiser), enums and their constant bodies (the JDK caches an enum's constants in
 * its {@code Class}: new ones would not be {@code ==} to {@code valueOf}'s), fields read by
 * reflection before the class is touched in an execution, and everything outside application
 * classes: JDK and library statics stay shared between executions. A failure racelens reports
 * is replayed in a fresh JVM first, so state that leaks through them cannot make one.
 */
final class StaticReset {
    private StaticReset() {}

    static final String EPOCH = "$racelens$epoch";
    static final String REINIT = "$racelens$reinit";
    static final String CLINIT_COPY = "$racelens$clinit";

    /** Off with the agent option {@code statics=keep}. */
    static volatile boolean enabled = true;

    /** A static field of the class being transformed that the reset sets back to its default. */
    static final class StaticField {
        final String name;
        final String desc;

        StaticField(String name, String desc) {
            this.name = name;
            this.desc = desc;
        }
    }

    /** Whether a class with these flags and super class gets the reset. */
    static boolean applies(int access, String name, String superName, ClassLoader loader) {
        if (!enabled || name.startsWith("racelens/")) {
            return false;
        }
        if ((access & (Opcodes.ACC_INTERFACE | Opcodes.ACC_ANNOTATION | Opcodes.ACC_MODULE | Opcodes.ACC_ENUM)) != 0) {
            return false;
        }
        // An enum constant with a body is a subclass of its enum.
        return superName == null || !ClassInfo.isSubclass(superName, "java/lang/Enum", loader);
    }

    private static final Map<ClassLoader, Map<String, Boolean>> RESETTABLE = java.util.Collections.synchronizedMap(new java.util.WeakHashMap<>());

    /** Whether {@code owner} (internal name) is an application class that gets the reset. */
    static boolean isResettable(String owner, ClassLoader loader) {
        if (!enabled || owner.startsWith("java/") || owner.startsWith("[") || loader == null) {
            return false;
        }
        Map<String, Boolean> known = RESETTABLE.computeIfAbsent(loader, l -> new ConcurrentHashMap<>());
        return known.computeIfAbsent(owner, o -> {
            ClassInfo info = ClassInfo.of(o, loader);
            return info != null && Transformer.isApplicationClass(o, loader) && applies(info.access, o, info.superName, loader);
        });
    }

    /** {@code Owner.$racelens$reinit()}: the guard before a use that initialises {@code owner}. */
    static MethodInsnNode guard(String owner) {
        return new MethodInsnNode(Opcodes.INVOKESTATIC, owner, REINIT, "()V", false);
    }

    /** {@code $racelens$epoch = Rt.epoch}: the real {@code <clinit>} records its execution. */
    static InsnList epochStore(String className) {
        InsnList l = new InsnList();
        l.add(new FieldInsnNode(Opcodes.GETSTATIC, Instrumenter.RT, "epoch", "I"));
        l.add(new FieldInsnNode(Opcodes.PUTSTATIC, className, EPOCH, "I"));
        return l;
    }

    /** A copy of {@code src} named {@code name}, with labels of its own. */
    static MethodNode copyOf(MethodNode src, String name, int access) {
        Map<LabelNode, LabelNode> labels = new HashMap<>();
        for (AbstractInsnNode n : src.instructions) {
            if (n instanceof LabelNode) {
                labels.put((LabelNode) n, new LabelNode());
            }
        }
        MethodNode copy = new MethodNode(Opcodes.ASM9, access, name, src.desc, null, null);
        for (AbstractInsnNode n : src.instructions) {
            AbstractInsnNode c = n.clone(labels);
            if (c instanceof InvokeDynamicInsnNode) {
                // A clone shares the bootstrap arguments, which a method reference's bridge rewrites.
                InvokeDynamicInsnNode indy = (InvokeDynamicInsnNode) c;
                indy.bsmArgs = indy.bsmArgs.clone();
            }
            copy.instructions.add(c);
        }
        for (TryCatchBlockNode t : src.tryCatchBlocks) {
            copy.tryCatchBlocks.add(new TryCatchBlockNode(labels.get(t.start), labels.get(t.end), labels.get(t.handler), t.type));
        }
        copy.maxLocals = src.maxLocals;
        copy.maxStack = src.maxStack;
        return copy;
    }

    /**
     * The members the reset adds to {@code className}: the epoch field, {@code $racelens$reinit()},
     * and a {@code <clinit>} recording the epoch when the class has none of its own.
     * {@code resettableSuper}: the super class when it is reset too (initialised first).
     */
    static void addMembers(ClassVisitor cv, String className, String resettableSuper, List<StaticField> fields, boolean hasClinit) {
        int synthetic = Opcodes.ACC_SYNTHETIC;
        cv.visitField(Opcodes.ACC_PRIVATE | Opcodes.ACC_STATIC | synthetic, EPOCH, "I", null, null).visitEnd();
        if (!hasClinit) {
            MethodVisitor init = cv.visitMethod(Opcodes.ACC_STATIC, "<clinit>", "()V", null, null);
            init.visitCode();
            init.visitFieldInsn(Opcodes.GETSTATIC, Instrumenter.RT, "epoch", "I");
            init.visitFieldInsn(Opcodes.PUTSTATIC, className, EPOCH, "I");
            init.visitInsn(Opcodes.RETURN);
            init.visitMaxs(0, 0);
            init.visitEnd();
        }
        MethodVisitor m = cv.visitMethod(Opcodes.ACC_PUBLIC | Opcodes.ACC_STATIC | synthetic, REINIT, "()V", null, null);
        m.visitCode();
        Label stale = new Label();
        m.visitFieldInsn(Opcodes.GETSTATIC, className, EPOCH, "I");
        m.visitFieldInsn(Opcodes.GETSTATIC, Instrumenter.RT, "epoch", "I");
        m.visitJumpInsn(Opcodes.IF_ICMPNE, stale);
        m.visitInsn(Opcodes.RETURN);
        m.visitLabel(stale);
        // Marked first: a use of the class from its own initialiser sees it being initialised,
        // as the JVM lets the initialising thread do.
        m.visitFieldInsn(Opcodes.GETSTATIC, Instrumenter.RT, "epoch", "I");
        m.visitFieldInsn(Opcodes.PUTSTATIC, className, EPOCH, "I");
        if (resettableSuper != null) {
            m.visitMethodInsn(Opcodes.INVOKESTATIC, resettableSuper, REINIT, "()V", false);
        }
        for (StaticField f : fields) {
            m.visitInsn(defaultValue(Type.getType(f.desc)));
            m.visitFieldInsn(Opcodes.PUTSTATIC, className, f.name, f.desc);
        }
        if (hasClinit) {
            Label start = new Label();
            Label end = new Label();
            Label handler = new Label();
            m.visitTryCatchBlock(start, end, handler, "java/lang/Throwable");
            m.visitLabel(start);
            m.visitMethodInsn(Opcodes.INVOKESTATIC, className, CLINIT_COPY, "()V", false);
            m.visitLabel(end);
            m.visitInsn(Opcodes.RETURN);
            m.visitLabel(handler);
            // As the JVM reports a failing initialiser: an Error as it is, anything else wrapped.
            m.visitMethodInsn(Opcodes.INVOKESTATIC, Instrumenter.RT, "initializerFailed", "(Ljava/lang/Throwable;)Ljava/lang/Error;", false);
            m.visitInsn(Opcodes.ATHROW);
        } else {
            m.visitInsn(Opcodes.RETURN);
        }
        m.visitMaxs(0, 0);
        m.visitEnd();
    }

    private static int defaultValue(Type t) {
        switch (t.getSort()) {
            case Type.LONG: return Opcodes.LCONST_0;
            case Type.FLOAT: return Opcodes.FCONST_0;
            case Type.DOUBLE: return Opcodes.DCONST_0;
            case Type.OBJECT:
            case Type.ARRAY: return Opcodes.ACONST_NULL;
            default: return Opcodes.ICONST_0;
        }
    }
}
