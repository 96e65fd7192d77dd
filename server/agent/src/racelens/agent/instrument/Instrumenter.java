package racelens.agent.instrument;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.FieldInsnNode;
import org.objectweb.asm.tree.InsnList;
import org.objectweb.asm.tree.InsnNode;
import org.objectweb.asm.tree.InvokeDynamicInsnNode;
import org.objectweb.asm.tree.JumpInsnNode;
import org.objectweb.asm.tree.LabelNode;
import org.objectweb.asm.tree.LdcInsnNode;
import org.objectweb.asm.tree.LineNumberNode;
import org.objectweb.asm.tree.MethodInsnNode;
import org.objectweb.asm.tree.MethodNode;
import org.objectweb.asm.tree.MultiANewArrayInsnNode;
import org.objectweb.asm.tree.TryCatchBlockNode;
import org.objectweb.asm.tree.TypeInsnNode;
import org.objectweb.asm.tree.VarInsnNode;
import racelens.rt.Sites;

/**
 * Instruments one application class: a scheduling point (a call into {@code racelens.rt.Rt})
 * before each shared-memory and synchronization operation, and the replacements listed in
 * PROTOCOL.md. Works on each method as a tree so that added exception handlers can be put where
 * they belong in the exception table.
 */
public final class Instrumenter {
    private Instrumenter() {}

    static final String RT = "racelens/rt/Rt";
    static final String MODEL = "racelens/rt/model/";

    /** Allocation of these JDK classes is replaced by a model subclass. */
    static final Map<String, String> MODELS = Map.ofEntries(
            Map.entry("java/util/concurrent/locks/ReentrantLock", MODEL + "ModelReentrantLock"),
            Map.entry("java/util/concurrent/locks/ReentrantReadWriteLock", MODEL + "ModelReentrantReadWriteLock"),
            Map.entry("java/util/concurrent/Semaphore", MODEL + "ModelSemaphore"),
            Map.entry("java/util/concurrent/CountDownLatch", MODEL + "ModelCountDownLatch"),
            Map.entry("java/util/concurrent/CyclicBarrier", MODEL + "ModelCyclicBarrier"),
            Map.entry("java/util/concurrent/LinkedBlockingQueue", MODEL + "ModelLinkedBlockingQueue"),
            Map.entry("java/util/concurrent/ArrayBlockingQueue", MODEL + "ModelArrayBlockingQueue"),
            Map.entry("java/util/concurrent/LinkedBlockingDeque", MODEL + "ModelLinkedBlockingDeque"),
            Map.entry("java/util/concurrent/SynchronousQueue", MODEL + "ModelSynchronousQueue"),
            Map.entry("java/util/concurrent/PriorityBlockingQueue", MODEL + "ModelPriorityBlockingQueue"),
            Map.entry("java/util/concurrent/DelayQueue", MODEL + "ModelDelayQueue"),
            Map.entry("java/util/concurrent/Phaser", MODEL + "ModelPhaser"),
            Map.entry("java/util/concurrent/Exchanger", MODEL + "ModelExchanger"),
            Map.entry("java/util/concurrent/locks/StampedLock", MODEL + "ModelStampedLock"),
            // abstract: an application synchronizer extends the model instead; its conditions are the model's
            Map.entry(JdkApi.AQS, MODEL + "ModelAbstractQueuedSynchronizer"),
            Map.entry(JdkApi.CONDITION_OBJECT, MODEL + "ModelAbstractQueuedSynchronizer$ModelConditionObject"),
            Map.entry("java/util/concurrent/FutureTask", MODEL + "ModelFutureTask"),
            Map.entry("java/util/concurrent/CompletableFuture", MODEL + "ModelCompletableFuture"),
            Map.entry("java/util/concurrent/ThreadPoolExecutor", MODEL + "ModelThreadPoolExecutor"),
            Map.entry("java/util/concurrent/ScheduledThreadPoolExecutor", MODEL + "ModelScheduledThreadPoolExecutor"),
            Map.entry("java/util/concurrent/ForkJoinPool", MODEL + "ModelForkJoinPool"),
            Map.entry("java/util/Timer", MODEL + "ModelTimer"));

    /** Static factories replaced by the controlled executor (same name and descriptor). */
    static final Set<String> EXECUTOR_FACTORIES = Set.of(
            "java/util/concurrent/Executors.newFixedThreadPool",
            "java/util/concurrent/Executors.newCachedThreadPool",
            "java/util/concurrent/Executors.newSingleThreadExecutor",
            "java/util/concurrent/Executors.newWorkStealingPool",
            "java/util/concurrent/Executors.newScheduledThreadPool",
            "java/util/concurrent/Executors.newSingleThreadScheduledExecutor",
            "java/util/concurrent/CompletableFuture.runAsync",
            "java/util/concurrent/CompletableFuture.supplyAsync",
            "java/util/concurrent/CompletableFuture.completedFuture",
            "java/util/concurrent/CompletableFuture.allOf",
            "java/util/concurrent/CompletableFuture.anyOf",
            "java/util/concurrent/CompletableFuture.failedFuture",
            "java/util/concurrent/CompletableFuture.completedStage",
            "java/util/concurrent/CompletableFuture.failedStage",
            "java/util/concurrent/CompletableFuture.delayedExecutor");

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
            String model = MODELS.get(superName);
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

    /** The transformation of one method body. */
    static final class MethodTransform {
        final ClassAdapter c;
        final MethodNode m;
        final InsnList insns;
        final boolean ctor;
        final List<TryCatchBlockNode> inner = new ArrayList<>();
        final List<TryCatchBlockNode> outer = new ArrayList<>();
        int line;
        int temp = -1;
        boolean superCalled;
        /** Pending NEW types of the constructor calls not yet reached (javac nests them). */
        final ArrayList<String> pendingNew = new ArrayList<>();

        MethodTransform(ClassAdapter c, MethodNode m) {
            this.c = c;
            this.m = m;
            this.insns = m.instructions;
            this.ctor = m.name.equals("<init>");
            this.superCalled = !ctor;
        }

        int site(String op, String target) {
            return Sites.register(c.dotted, m.name, line, op, target);
        }

        int temp() {
            if (temp < 0) {
                temp = m.maxLocals;
                m.maxLocals += 2;
            }
            return temp;
        }

        static AbstractInsnNode ldc(int v) {
            return new LdcInsnNode(v);
        }

        static MethodInsnNode rt(String name, String desc) {
            return new MethodInsnNode(Opcodes.INVOKESTATIC, RT, name, desc, false);
        }

        void run() {
            boolean sync = (m.access & Opcodes.ACC_SYNCHRONIZED) != 0;
            boolean clinit = m.name.equals("<clinit>") || m.name.equals(StaticReset.CLINIT_COPY);
            Set<LabelNode> seen = new HashSet<>();
            int first = firstLine();
            for (AbstractInsnNode n : insns.toArray()) {
                if (n instanceof LineNumberNode) {
                    line = ((LineNumberNode) n).line;
                    continue;
                }
                if (n instanceof LabelNode) {
                    seen.add((LabelNode) n);
                    continue;
                }
                if (line == 0) {
                    line = first;
                }
                if (n instanceof FieldInsnNode) {
                    if (!c.syncOnly) {
                        field((FieldInsnNode) n);
                    }
                } else if (n instanceof MethodInsnNode) {
                    method((MethodInsnNode) n);
                } else if (n instanceof TypeInsnNode) {
                    type((TypeInsnNode) n);
                } else if (n.getOpcode() == Opcodes.NEWARRAY || n instanceof MultiANewArrayInsnNode) {
                    born(n);
                } else if (n instanceof InvokeDynamicInsnNode) {
                    methodRef((InvokeDynamicInsnNode) n);
                } else if (n instanceof JumpInsnNode) {
                    if (!c.syncOnly && seen.contains(((JumpInsnNode) n).label)) {
                        insns.insertBefore(n, rt("tick", "()V"));
                    }
                } else if (n instanceof InsnNode) {
                    insn((InsnNode) n);
                }
            }
            if (sync) {
                line = first;
                boolean isStatic = (m.access & Opcodes.ACC_STATIC) != 0;
                wrap(() -> isStatic ? new LdcInsnNode(Type.getObjectType(c.className)) : new VarInsnNode(Opcodes.ALOAD, 0),
                        site("LOCK", isStatic ? c.dotted + ".class" : "this"));
            }
            if (clinit) {
                wrap(null, 0);
            }
            if (m.name.equals("run") && m.desc.equals("()V") && (m.access & Opcodes.ACC_STATIC) == 0
                    && ClassInfo.isSubclass(c.superName, "java/lang/Thread", c.loader)) {
                // a Thread subclass's run(): the thread waits for its turn before anything else
                insns.insert(rt("threadBegin", "()V"));
            }
            if (!inner.isEmpty() || !outer.isEmpty()) {
                List<TryCatchBlockNode> all = new ArrayList<>(inner);
                all.addAll(m.tryCatchBlocks);
                all.addAll(outer);
                m.tryCatchBlocks = all;
            }
            if (c.reset && (ctor || isStatic()) && !clinit) {
                // Where the JVM would initialise the class: its static methods and constructors.
                insns.insert(StaticReset.guard(c.className));
            }
        }

        boolean isStatic() {
            return (m.access & Opcodes.ACC_STATIC) != 0;
        }

        /** A method reference the JDK's lambda would call out of sight: to a bridge of this class instead ({@link MethodRefs}). */
        void methodRef(InvokeDynamicInsnNode indy) {
            org.objectweb.asm.Handle impl = MethodRefs.target(indy, c.className, c.loader);
            if (impl == null) {
                return;
            }
            String name = MethodRefs.PREFIX + c.bridges.size();
            String desc = MethodRefs.bridgeDesc(impl, indy);
            // private in a class; an interface of a Java 8 class file may only have public ones
            int access = Opcodes.ACC_STATIC | Opcodes.ACC_SYNTHETIC
                    | (c.isInterface && (c.version & 0xFFFF) < Opcodes.V9 ? Opcodes.ACC_PUBLIC : Opcodes.ACC_PRIVATE);
            c.bridges.add(MethodRefs.bridge(access, name, impl, desc, line));
            indy.bsmArgs[1] = new org.objectweb.asm.Handle(Opcodes.H_INVOKESTATIC, c.className, name, desc, c.isInterface);
        }

        int firstLine() {
            for (AbstractInsnNode n = insns.getFirst(); n != null; n = n.getNext()) {
                if (n instanceof LineNumberNode) {
                    return ((LineNumberNode) n).line;
                }
            }
            return 0;
        }

        interface LockPush {
            AbstractInsnNode push();
        }

        /** Wraps the whole body: model monitor enter/exit (lock != null) or class-init suppression. */
        void wrap(LockPush lock, int site) {
            LabelNode start = new LabelNode();
            LabelNode end = new LabelNode();
            LabelNode handler = new LabelNode();
            InsnList pre = new InsnList();
            if (lock != null) {
                pre.add(lock.push());
                pre.add(ldc(site));
                pre.add(rt("monitorEnter", "(Ljava/lang/Object;I)V"));
            } else {
                pre.add(rt("clinitEnter", "()V"));
            }
            pre.add(start);
            for (AbstractInsnNode n : insns.toArray()) {
                int op = n.getOpcode();
                if (op >= Opcodes.IRETURN && op <= Opcodes.RETURN) {
                    insns.insertBefore(n, exitCall(lock));
                }
            }
            insns.insert(pre);
            insns.add(end);
            insns.add(handler);
            insns.add(exitCall(lock));
            insns.add(new InsnNode(Opcodes.ATHROW));
            outer.add(new TryCatchBlockNode(start, end, handler, null));
        }

        InsnList exitCall(LockPush lock) {
            InsnList l = new InsnList();
            if (lock != null) {
                l.add(lock.push());
                l.add(rt("monitorExit", "(Ljava/lang/Object;)V"));
            } else {
                l.add(rt("clinitExit", "()V"));
            }
            return l;
        }

        /** {@code DUP} of a value of type {@code t} on top of the stack and {@code Rt.value(t)} (full-mode E lines). */
        static InsnList valueHook(Type t) {
            InsnList l = new InsnList();
            l.add(new InsnNode(t.getSize() == 2 ? Opcodes.DUP2 : Opcodes.DUP));
            String d;
            switch (t.getSort()) {
                case Type.BOOLEAN: d = "(Z)V"; break;
                case Type.CHAR: d = "(C)V"; break;
                case Type.BYTE:
                case Type.SHORT:
                case Type.INT: d = "(I)V"; break;
                case Type.LONG: d = "(J)V"; break;
                case Type.FLOAT: d = "(F)V"; break;
                case Type.DOUBLE: d = "(D)V"; break;
                default: d = "(Ljava/lang/Object;)V"; break;
            }
            l.add(rt("value", d));
            return l;
        }

        static Type arrayElement(int op) {
            switch (op) {
                case Opcodes.IALOAD: case Opcodes.IASTORE: return Type.INT_TYPE;
                case Opcodes.LALOAD: case Opcodes.LASTORE: return Type.LONG_TYPE;
                case Opcodes.FALOAD: case Opcodes.FASTORE: return Type.FLOAT_TYPE;
                case Opcodes.DALOAD: case Opcodes.DASTORE: return Type.DOUBLE_TYPE;
                case Opcodes.AALOAD: case Opcodes.AASTORE: return Type.getObjectType("java/lang/Object");
                case Opcodes.CALOAD: case Opcodes.CASTORE: return Type.CHAR_TYPE;
                default: return Type.INT_TYPE; // byte/boolean arrays, short
            }
        }

        void field(FieldInsnNode f) {
            String name = f.name;
            int op0 = f.getOpcode();
            boolean ownInitialised = f.owner.equals(c.className) && (ctor || isStatic());
            if ((op0 == Opcodes.GETSTATIC || op0 == Opcodes.PUTSTATIC) && !ownInitialised && StaticReset.isResettable(f.owner, c.loader)) {
                // A static field of another class (or read by an instance method): initialise it first.
                insns.insertBefore(f, StaticReset.guard(f.owner));
            }
            if (name.startsWith("this$") || name.startsWith("val$") || name.equals("$assertionsDisabled")
                    || name.startsWith("$SwitchMap$") || name.equals("$VALUES") || name.startsWith("$jacoco")) {
                return;
            }
            int access = ClassInfo.fieldAccess(f.owner, name, c.loader);
            if (access != -1 && (access & Opcodes.ACC_FINAL) != 0) {
                return;
            }
            int op = f.getOpcode();
            boolean write = op == Opcodes.PUTFIELD || op == Opcodes.PUTSTATIC;
            int site = site(write ? "WRITE" : "READ", f.owner.replace('/', '.') + "." + name);
            InsnList l = new InsnList();
            if (op == Opcodes.GETSTATIC || op == Opcodes.PUTSTATIC || !superCalled) {
                l.add(ldc(site));
                l.add(rt("point", "(I)V"));
            } else if (op == Opcodes.GETFIELD) {
                l.add(new InsnNode(Opcodes.DUP));
                l.add(ldc(site));
                l.add(rt("point", "(Ljava/lang/Object;I)V"));
            } else {
                Type t = Type.getType(f.desc);
                if (t.getSize() == 1) {
                    l.add(new InsnNode(Opcodes.DUP2));
                    l.add(new InsnNode(Opcodes.POP));
                    l.add(ldc(site));
                    l.add(rt("point", "(Ljava/lang/Object;I)V"));
                } else {
                    int tmp = temp();
                    l.add(new VarInsnNode(t.getOpcode(Opcodes.ISTORE), tmp));
                    l.add(new InsnNode(Opcodes.DUP));
                    l.add(ldc(site));
                    l.add(rt("point", "(Ljava/lang/Object;I)V"));
                    l.add(new VarInsnNode(t.getOpcode(Opcodes.ILOAD), tmp));
                }
            }
            Type vt = Type.getType(f.desc);
            if (write) {
                l.add(valueHook(vt));
                insns.insertBefore(f, l);
            } else {
                insns.insertBefore(f, l);
                insns.insert(f, valueHook(vt));
            }
        }

        void insn(InsnNode n) {
            int op = n.getOpcode();
            if (c.syncOnly && op != Opcodes.MONITORENTER && op != Opcodes.MONITOREXIT) {
                return;
            }
            if (op >= Opcodes.IALOAD && op <= Opcodes.SALOAD) {
                InsnList l = new InsnList();
                l.add(new InsnNode(Opcodes.DUP2));
                l.add(new InsnNode(Opcodes.POP));
                l.add(ldc(site("AREAD", "-")));
                l.add(rt("point", "(Ljava/lang/Object;I)V"));
                insns.insertBefore(n, l);
                insns.insert(n, valueHook(arrayElement(op)));
            } else if (op >= Opcodes.IASTORE && op <= Opcodes.SASTORE) {
                int store;
                switch (op) {
                    case Opcodes.LASTORE: store = Opcodes.LSTORE; break;
                    case Opcodes.FASTORE: store = Opcodes.FSTORE; break;
                    case Opcodes.DASTORE: store = Opcodes.DSTORE; break;
                    case Opcodes.AASTORE: store = Opcodes.ASTORE; break;
                    default: store = Opcodes.ISTORE; break;
                }
                int tmp = temp();
                InsnList l = new InsnList();
                l.add(new VarInsnNode(store, tmp));
                l.add(new InsnNode(Opcodes.DUP2));
                l.add(new InsnNode(Opcodes.POP));
                l.add(ldc(site("AWRITE", "-")));
                l.add(rt("point", "(Ljava/lang/Object;I)V"));
                l.add(new VarInsnNode(store - Opcodes.ISTORE + Opcodes.ILOAD, tmp));
                l.add(valueHook(arrayElement(op)));
                insns.insertBefore(n, l);
            } else if (op == Opcodes.MONITORENTER) {
                InsnList l = new InsnList();
                l.add(ldc(site("LOCK", "-")));
                l.add(rt("monitorEnter", "(Ljava/lang/Object;I)V"));
                insns.insertBefore(n, l);
                insns.remove(n);
            } else if (op == Opcodes.MONITOREXIT) {
                insns.set(n, rt("monitorExit", "(Ljava/lang/Object;)V"));
            }
        }

        void type(TypeInsnNode t) {
            if (t.getOpcode() == Opcodes.ANEWARRAY) {
                born(t);
            }
            if (t.getOpcode() != Opcodes.NEW) {
                return;
            }
            pendingNew.add(t.desc);
            String model = MODELS.get(t.desc);
            if (model != null) {
                t.desc = model;
            }
        }

        /** Replaces {@code n} by a static call into Rt, with the site pushed last when {@code op} != null. */
        void replace(MethodInsnNode n, String name, String desc, String op, String target) {
            if (op != null) {
                insns.insertBefore(n, ldc(site(op, target)));
            }
            insns.set(n, rt(name, desc));
        }

        void method(MethodInsnNode n) {
            String owner = n.owner;
            String name = n.name;
            String desc = n.desc;
            int op = n.getOpcode();
            if (op == Opcodes.INVOKESPECIAL && name.equals("<init>")) {
                constructorCall(n);
                return;
            }
            if (op == Opcodes.INVOKESPECIAL) {
                if (isThread(owner) && threadSuper(n)) {
                    return;
                }
                String model = MODELS.get(owner);
                if (model != null && model.equals(c.superName)) {
                    n.owner = model;
                }
                return;
            }
            // Object monitor methods (final in Object, any owner)
            if (op == Opcodes.INVOKEVIRTUAL || op == Opcodes.INVOKEINTERFACE) {
                if (name.equals("wait") || name.equals("notify") || name.equals("notifyAll")) {
                    String repl = null;
                    switch (name + desc) {
                        case "wait()V": repl = "(Ljava/lang/Object;I)V"; break;
                        case "wait(J)V": repl = "(Ljava/lang/Object;JI)V"; break;
                        case "wait(JI)V": repl = "(Ljava/lang/Object;JII)V"; break;
                        case "notify()V":
                        case "notifyAll()V": repl = "(Ljava/lang/Object;I)V"; break;
                        default: break;
                    }
                    if (repl != null) {
                        replace(n, name, repl, name.toUpperCase(java.util.Locale.ROOT), "-");
                        return;
                    }
                }
            }
            if (owner.equals("java/lang/System")) {
                switch (name + desc) {
                    case "arraycopy(Ljava/lang/Object;ILjava/lang/Object;II)V": replace(n, "arraycopy", desc, null, null); return;
                    case "exit(I)V": replace(n, "exit", "(I)V", null, null); return;
                    case "nanoTime()J": replace(n, "nanoTime", "()J", null, null); return;
                    case "currentTimeMillis()J": replace(n, "currentTimeMillis", "()J", null, null); return;
                    default: return;
                }
            }
            if (owner.startsWith("java/time/") && op == Opcodes.INVOKESTATIC && javaTime(n)) {
                return;
            }
            if (owner.equals("java/util/Calendar") && op == Opcodes.INVOKESTATIC && name.equals("getInstance")) {
                // now, on the logical clock: the JDK's reads the wall clock inside
                InsnList now = new InsnList();
                now.add(new InsnNode(Opcodes.DUP));
                now.add(rt("currentTimeMillis", "()J"));
                now.add(new MethodInsnNode(Opcodes.INVOKEVIRTUAL, "java/util/Calendar", "setTimeInMillis", "(J)V", false));
                insns.insert(n, now);
                return;
            }
            if (owner.equals("java/lang/Runtime") && (name + desc).matches("(exit|halt)\\(I\\)V")) {
                replace(n, name, "(Ljava/lang/Runtime;I)V", null, null);
                return;
            }
            if ((owner.equals("java/lang/Math") || owner.equals("java/lang/StrictMath")) && name.equals("random")) {
                replace(n, "mathRandom", "()D", null, null);
                return;
            }
            if (owner.equals("java/util/concurrent/locks/LockSupport")) {
                String repl = null;
                switch (name + desc) {
                    case "park()V": repl = "(I)V"; break;
                    case "park(Ljava/lang/Object;)V": repl = "(Ljava/lang/Object;I)V"; break;
                    case "parkNanos(J)V": repl = "(JI)V"; break;
                    case "parkNanos(Ljava/lang/Object;J)V": repl = "(Ljava/lang/Object;JI)V"; break;
                    case "parkUntil(J)V": repl = "(JI)V"; break;
                    case "parkUntil(Ljava/lang/Object;J)V": repl = "(Ljava/lang/Object;JI)V"; break;
                    case "unpark(Ljava/lang/Thread;)V": repl = "(Ljava/lang/Thread;I)V"; break;
                    case "getBlocker(Ljava/lang/Thread;)Ljava/lang/Object;":
                        replace(n, "getBlocker", "(Ljava/lang/Thread;I)Ljava/lang/Object;", "CALL", "java.util.concurrent.locks.LockSupport.getBlocker");
                        return;
                    default: break;
                }
                if (repl != null) {
                    replace(n, name, repl, name.startsWith("unpark") ? "UNPARK" : "PARK", "-");
                    return;
                }
            }
            if (owner.equals("java/util/concurrent/TimeUnit") && op == Opcodes.INVOKEVIRTUAL) {
                String repl = null;
                switch (name + desc) {
                    case "sleep(J)V": repl = "(Ljava/util/concurrent/TimeUnit;JI)V"; break;
                    case "timedJoin(Ljava/lang/Thread;J)V": repl = "(Ljava/util/concurrent/TimeUnit;Ljava/lang/Thread;JI)V"; break;
                    case "timedWait(Ljava/lang/Object;J)V": repl = "(Ljava/util/concurrent/TimeUnit;Ljava/lang/Object;JI)V"; break;
                    default: break;
                }
                if (repl != null) {
                    insns.insertBefore(n, ldc(site(name.equals("sleep") ? "SLEEP" : name.equals("timedJoin") ? "JOIN" : "WAIT", "-")));
                    insns.set(n, new MethodInsnNode(Opcodes.INVOKESTATIC, MODEL + "Models", "unit" + name, repl, false));
                    return;
                }
            }
            if (isThread(owner) && thread(n)) {
                return;
            }
            if (forkJoin(n) || jdkTaskState(n) || jdkApi(n)) {
                return;
            }
            sequentialStream(n);
            if (EXECUTOR_FACTORIES.contains(owner + "." + name) && op == Opcodes.INVOKESTATIC) {
                insns.set(n, new MethodInsnNode(Opcodes.INVOKESTATIC, MODEL + "ModelExecutors", name, desc, false));
                return;
            }
            if (atomicCall(owner) && superCalled) {
                // A library's calls are no points, but stay atomic: a callback of the project's
                // inside them must not switch while the JDK holds a lock of its own.
                int site = c.syncOnly ? -1 : site("CALL", owner.replace('/', '.') + "." + name);
                if (site >= 0 && resultDropped(n)) {
                    Sites.resultUnused(site);
                }
                bracket(n, site);
            } else if (holdsRealLocks(owner) && superCalled) {
                bracket(n, -1);
            }
        }

        /** Whether the code drops what call {@code n} returns: a void method, or a POP right after it. */
        static boolean resultDropped(MethodInsnNode n) {
            if (Type.getReturnType(n.desc).getSort() == Type.VOID) {
                return true;
            }
            AbstractInsnNode next = n.getNext();
            while (next != null && next.getOpcode() < 0) {
                next = next.getNext(); // labels, line numbers, frames
            }
            return next != null && (next.getOpcode() == Opcodes.POP || next.getOpcode() == Opcodes.POP2);
        }

        /** {@code java.time}'s date-time classes whose {@code now()} and {@code now(zone)} read a clock. */
        static final Set<String> DATE_TIMES = Set.of("java/time/LocalDateTime", "java/time/LocalDate", "java/time/LocalTime",
                "java/time/ZonedDateTime", "java/time/OffsetDateTime", "java/time/OffsetTime", "java/time/Year", "java/time/YearMonth",
                "java/time/MonthDay");

        /**
         * {@code java.time}'s clocks on the logical clock ({@code racelens.rt.LogicalClock}):
         * {@code Instant.now()}, {@code Clock.systemUTC()}/{@code systemDefaultZone()}, and the
         * date-time classes' {@code now()}/{@code now(zone)}, which become their {@code now(clock)}.
         * True when replaced.
         */
        boolean javaTime(MethodInsnNode n) {
            String key = n.owner + "." + n.name + n.desc;
            switch (key) {
                case "java/time/Instant.now()Ljava/time/Instant;":
                    insns.set(n, rt("instantNow", "()Ljava/time/Instant;"));
                    return true;
                case "java/time/Clock.systemUTC()Ljava/time/Clock;":
                    insns.set(n, rt("systemUTC", "()Ljava/time/Clock;"));
                    return true;
                case "java/time/Clock.systemDefaultZone()Ljava/time/Clock;":
                    insns.set(n, rt("systemDefaultZone", "()Ljava/time/Clock;"));
                    return true;
                default:
                    break;
            }
            if (!n.name.equals("now") || !DATE_TIMES.contains(n.owner)) {
                return false;
            }
            String result = "L" + n.owner + ";";
            if (n.desc.equals("()" + result)) {
                insns.insertBefore(n, rt("systemDefaultZone", "()Ljava/time/Clock;"));
            } else if (n.desc.equals("(Ljava/time/ZoneId;)" + result)) {
                insns.insertBefore(n, rt("clockIn", "(Ljava/time/ZoneId;)Ljava/time/Clock;"));
            } else {
                return false;
            }
            n.desc = "(Ljava/time/Clock;)" + result;
            return true;
        }

        /**
         * JDK code that calls back into application code while it holds a real lock
         * ({@code println(obj)} calls {@code obj.toString()} inside the stream's monitor): such
         * calls run as one atomic step too, but without a scheduling point of their own.
         */
        static boolean holdsRealLocks(String owner) {
            return owner.startsWith("java/io/") || owner.startsWith("java/nio/") || owner.startsWith("java/util/logging/")
                    || owner.equals("java/lang/StringBuffer") || owner.equals("java/lang/Throwable");
        }

        void constructorCall(MethodInsnNode n) {
            if (pendingNew.isEmpty()) {
                // super(...) or this(...): the object is initialised from here on, and named
                // before its own constructor touches it (the name is given once).
                if (ctor && !superCalled && c.tagged) {
                    InsnList l = new InsnList();
                    l.add(new VarInsnNode(Opcodes.ALOAD, 0));
                    l.add(rt("born", "(Ljava/lang/Object;)V"));
                    insns.insert(n, l);
                }
                superCalled = true;
                String model = MODELS.get(n.owner);
                if (model != null && model.equals(c.superName)) {
                    n.owner = model;
                }
                return;
            }
            String created = pendingNew.remove(pendingNew.size() - 1);
            born(n);
            String model = MODELS.get(created);
            if (model != null && n.owner.equals(created)) {
                n.owner = model;
            } else if (created.equals("java/util/Date") && n.owner.equals("java/util/Date") && n.desc.equals("()V")) {
                // now, on the logical clock (as System.currentTimeMillis() is): Timer.schedule(task, Date)
                insns.insertBefore(n, rt("currentTimeMillis", "()J"));
                n.desc = "(J)V";
            } else if (created.equals("java/util/Random") && n.owner.equals("java/util/Random") && n.desc.equals("()V")) {
                insns.insertBefore(n, rt("seed", "()J"));
                n.desc = "(J)V";
            }
        }

        static final String FJ_TASK = "java/util/concurrent/ForkJoinTask";
        static final String FJ_TASKS = MODEL + "ModelForkJoinTasks";

        /**
         * Calls that schedule fork/join work, whose JDK versions are final (no model subclass
         * can replace them): {@code ForkJoinPool.commonPool()}, and {@code fork}/{@code join}/
         * {@code invoke}/{@code get}/{@code quietly*} of {@code ForkJoinTask} (and subclasses),
         * {@code ForkJoinTask.invokeAll}, {@code Future.get} (a fork/join task may be held as a
         * Future) become static calls of {@code ModelForkJoinTasks}, the site pushed last.
         * True when replaced.
         */
        boolean forkJoin(MethodInsnNode n) {
            int op = n.getOpcode();
            String key = n.name + n.desc;
            if (op == Opcodes.INVOKESTATIC && n.owner.equals("java/util/concurrent/ForkJoinPool") && key.equals("commonPool()Ljava/util/concurrent/ForkJoinPool;")) {
                insns.set(n, new MethodInsnNode(Opcodes.INVOKESTATIC, MODEL + "ModelForkJoinPool", "commonPool", n.desc, false));
                return true;
            }
            if (op == Opcodes.INVOKEINTERFACE && isFutureInterface(n.owner) && n.name.equals("get")) {
                String repl = key.equals("get()Ljava/lang/Object;") ? "(Ljava/util/concurrent/Future;I)Ljava/lang/Object;"
                        : key.equals("get(JLjava/util/concurrent/TimeUnit;)Ljava/lang/Object;")
                                ? "(Ljava/util/concurrent/Future;JLjava/util/concurrent/TimeUnit;I)Ljava/lang/Object;" : null;
                if (repl == null) {
                    return false;
                }
                insns.insertBefore(n, ldc(site("CALL", n.owner.replace('/', '.') + ".get")));
                insns.set(n, new MethodInsnNode(Opcodes.INVOKESTATIC, FJ_TASKS, "futureGet", repl, false));
                return true;
            }
            String t = "Ljava/util/concurrent/ForkJoinTask;";
            String repl;
            if (op == Opcodes.INVOKEVIRTUAL) {
                switch (key) {
                    case "fork()Ljava/util/concurrent/ForkJoinTask;": repl = "(" + t + "I)" + t; break;
                    case "join()Ljava/lang/Object;":
                    case "invoke()Ljava/lang/Object;":
                    case "get()Ljava/lang/Object;": repl = "(" + t + "I)Ljava/lang/Object;"; break;
                    case "get(JLjava/util/concurrent/TimeUnit;)Ljava/lang/Object;": repl = "(" + t + "JLjava/util/concurrent/TimeUnit;I)Ljava/lang/Object;"; break;
                    case "quietlyJoin()V":
                    case "quietlyInvoke()V": repl = "(" + t + "I)V"; break;
                    default: return false;
                }
            } else if (op == Opcodes.INVOKESTATIC) {
                switch (key) {
                    case "invokeAll(Ljava/util/concurrent/ForkJoinTask;Ljava/util/concurrent/ForkJoinTask;)V": repl = "(" + t + t + "I)V"; break;
                    case "invokeAll([Ljava/util/concurrent/ForkJoinTask;)V": repl = "([" + t + "I)V"; break;
                    case "invokeAll(Ljava/util/Collection;)Ljava/util/Collection;": repl = "(Ljava/util/Collection;I)Ljava/util/Collection;"; break;
                    default: return false;
                }
            } else {
                return false;
            }
            if (!isForkJoinTask(n.owner)) {
                return false;
            }
            insns.insertBefore(n, ldc(site("CALL", FJ_TASK.replace('/', '.') + "." + n.name)));
            insns.set(n, new MethodInsnNode(Opcodes.INVOKESTATIC, FJ_TASKS, n.name, repl, false));
            return true;
        }

        /**
         * A parallel stream of application code becomes sequential: {@code parallel()} is
         * {@code sequential()}, a JDK collection's {@code parallelStream()} is {@code stream()},
         * {@code StreamSupport}'s {@code parallel} flag is false. Its work then runs in the
         * calling thread with the scheduling points of its lambdas, and never in the JDK's
         * fork/join machinery, whose one shared submission queue (a common pool without
         * threads) two controlled threads would otherwise interleave on and block in for real.
         * Its own parallelism is not explored, and the execution says so ({@link
         * racelens.rt.Rt#sequentialStream}): a claim about its schedules must not hide it.
         */
        void sequentialStream(MethodInsnNode n) {
            if (!n.owner.startsWith("java/")) {
                return;
            }
            String target = n.owner.replace('/', '.') + "." + n.name;
            if (n.owner.startsWith("java/util/stream/") && n.name.equals("parallel") && n.desc.startsWith("()")) {
                n.name = "sequential";
            } else if (n.name.equals("parallelStream") && n.desc.equals("()Ljava/util/stream/Stream;")) {
                n.name = "stream";
            } else if (n.owner.equals("java/util/stream/StreamSupport") && n.desc.contains("Z)")) {
                InsnList flag = new InsnList();
                flag.add(new InsnNode(Opcodes.POP));
                flag.add(new InsnNode(Opcodes.ICONST_0));
                insns.insertBefore(n, flag);
            } else {
                return;
            }
            insns.insertBefore(n, ldc(site("CALL", target)));
            insns.insertBefore(n, rt("sequentialStream", "(I)V"));
        }

        static boolean isFutureInterface(String owner) {
            switch (owner) {
                case "java/util/concurrent/Future":
                case "java/util/concurrent/RunnableFuture":
                case "java/util/concurrent/ScheduledFuture":
                case "java/util/concurrent/RunnableScheduledFuture":
                    return true;
                default:
                    return false;
            }
        }

        boolean isForkJoinTask(String owner) {
            if (owner.startsWith("[")) {
                return false;
            }
            if (owner.startsWith("java/")) {
                return owner.equals(FJ_TASK) || owner.equals("java/util/concurrent/RecursiveTask")
                        || owner.equals("java/util/concurrent/RecursiveAction") || owner.equals("java/util/concurrent/CountedCompleter");
            }
            return ClassInfo.isSubclass(owner, FJ_TASK, c.loader);
        }

        /**
         * A call to a JDK method of a {@code TimerTask} or {@code ForkJoinTask} made through an
         * application subclass ({@code refresh.cancel()} on a {@code RefreshTask}): not a JDK
         * owner, so no call point of its own, yet it reads or writes the task's state that the
         * timer and pool models touch. A scheduling point on the task before it (an override in
         * the application keeps its own points). False: the call is left as it is.
         */
        boolean jdkTaskState(MethodInsnNode n) {
            if (n.getOpcode() != Opcodes.INVOKEVIRTUAL || n.owner.startsWith("java/") || n.owner.startsWith("[")) {
                return false;
            }
            String key = n.name + n.desc;
            String family;
            switch (key) {
                case "cancel()Z":
                case "scheduledExecutionTime()J":
                    family = "java/util/TimerTask";
                    break;
                case "isDone()Z":
                case "isCancelled()Z":
                case "isCompletedAbnormally()Z":
                case "isCompletedNormally()Z":
                case "getException()Ljava/lang/Throwable;":
                case "getRawResult()Ljava/lang/Object;":
                case "tryUnfork()Z":
                case "reinitialize()V":
                case "quietlyComplete()V":
                case "cancel(Z)Z":
                    family = FJ_TASK;
                    break;
                default:
                    return false;
            }
            if (!ClassInfo.isSubclass(n.owner, family, c.loader) || !superCalled) {
                return false;
            }
            InsnList l = new InsnList();
            boolean oneArg = key.equals("cancel(Z)Z");
            if (oneArg) {
                l.add(new InsnNode(Opcodes.SWAP)); // receiver, arg -> arg, receiver
                l.add(new InsnNode(Opcodes.DUP_X1)); // receiver, arg, receiver
            } else {
                l.add(new InsnNode(Opcodes.DUP));
            }
            l.add(ldc(site("CALL", family.replace('/', '.') + "." + n.name)));
            l.add(rt("point", "(Ljava/lang/Object;I)V"));
            insns.insertBefore(n, l);
            return true;
        }

        /**
         * After {@code n} (an object's constructor call, or an array's allocation) the new
         * object is on the stack: {@code Rt.born} names it by its allocating thread and how many
         * objects that thread allocated before, a name no other schedule of the same class
         * changes (PROTOCOL.md, "Effects"). An application object is named earlier, when its
         * constructor's {@code super(...)} returns; this second call then only records where
         * it was allocated (its {@code NEW} site, RUN option {@code alloc}).
         */
        void born(AbstractInsnNode n) {
            if (c.syncOnly) {
                return; // a library's objects are named when the project's code first touches them
            }
            InsnList l = new InsnList();
            l.add(new InsnNode(Opcodes.DUP));
            l.add(ldc(site("NEW", "-")));
            l.add(rt("born", "(Ljava/lang/Object;I)V"));
            insns.insert(n, l);
        }

        boolean isThread(String owner) {
            if (owner.equals("java/lang/Thread")) {
                return true;
            }
            if (owner.startsWith("java/") || owner.startsWith("[")) {
                return false;
            }
            return ClassInfo.isSubclass(owner, "java/lang/Thread", c.loader);
        }

        /**
         * The calls of {@link JdkApi}: final methods of the lock families and of the synchronizer
         * become static calls of {@code FinalCalls} (behind a point, except the synchronizer's
         * acquisitions and releases, whose {@code tryAcquire}/{@code tryRelease} have points of
         * their own), the synchronizer's state methods get a point, and a call through an
         * application subclass of a lock family to a method the application does not declare
         * gets the point a call through the JDK type gets. True when handled.
         */
        boolean jdkApi(MethodInsnNode n) {
            int op = n.getOpcode();
            if (op != Opcodes.INVOKEVIRTUAL && op != Opcodes.INVOKEINTERFACE) {
                return false;
            }
            String key = n.name + n.desc;
            if ((n.owner.equals(JdkApi.CONDITION) || n.owner.equals(JdkApi.CONDITION_OBJECT)) && JdkApi.CONDITION_METHODS.contains(key)) {
                redirect(n, JdkApi.CONDITION, n.owner.replace('/', '.') + "." + n.name);
                return true;
            }
            if (JdkApi.CONDITION_QUERIES.contains(key) && !n.owner.startsWith("java/")
                    && ClassInfo.isSubclass(n.owner, JdkApi.CONDITION_OBJECT, c.loader)) {
                redirect(n, JdkApi.CONDITION_OBJECT, JdkApi.CONDITION_OBJECT.replace('/', '.') + "." + n.name);
                return true;
            }
            String family = JdkApi.family(n.owner, c.loader);
            if (family == null) {
                return false;
            }
            String target = family.replace('/', '.') + "." + n.name;
            if (family.equals(JdkApi.AQS)) {
                if (JdkApi.AQS_STATE.contains(key)) {
                    if (superCalled) {
                        bracket(n, site("CALL", target));
                    }
                    return true;
                }
                if (JdkApi.AQS_ACQUIRE.contains(key)) {
                    insns.set(n, new MethodInsnNode(Opcodes.INVOKESTATIC, JdkApi.FINAL_CALLS, n.name, JdkApi.staticDesc(family, n.desc), false));
                    return true;
                }
                if (JdkApi.FINALS.get(family).contains(key)) {
                    redirect(n, family, target);
                    return true;
                }
                return false; // its other methods: the application's, or Object's
            }
            if (JdkApi.FINALS.getOrDefault(family, java.util.Set.of()).contains(key)) {
                redirect(n, family, target);
                return true;
            }
            if (!n.owner.startsWith("java/") && op == Opcodes.INVOKEVIRTUAL && superCalled
                    && JdkApi.runsJdkMethod(n.owner, family, key, c.loader)) {
                bracket(n, site("CALL", target));
                return true;
            }
            return false;
        }

        /**
         * {@code n} becomes a static call of {@code FinalCalls} with the receiver (as a
         * {@code receiver}) first; behind a point named {@code target}, as one atomic step.
         */
        void redirect(MethodInsnNode n, String receiver, String target) {
            if (superCalled) {
                bracket(n, site("CALL", target));
            }
            insns.set(n, new MethodInsnNode(Opcodes.INVOKESTATIC, JdkApi.FINAL_CALLS, n.name, JdkApi.staticDesc(receiver, n.desc), false));
        }

        /**
         * {@code super.interrupt()}, {@code super.isInterrupted()} or {@code super.getState()} in
         * a thread class of the application that overrides it: the model's operation (the call
         * of the override itself went through {@code Rt}, which ran the override). True when
         * replaced.
         */
        boolean threadSuper(MethodInsnNode n) {
            String key = n.name + n.desc;
            String t = "Ljava/lang/Thread;";
            if (!n.owner.equals("java/lang/Thread") && ClassInfo.declaredBelow(n.owner, "java/lang/Thread", key, c.loader)) {
                return false; // an application class's own version
            }
            switch (key) {
                case "interrupt()V": replace(n, "interruptSuper", "(" + t + "I)V", "INTERRUPT", "-"); return true;
                case "isInterrupted()Z": replace(n, "isInterruptedSuper", "(" + t + "I)Z", "INTERRUPTED", "-"); return true;
                case "getState()Ljava/lang/Thread$State;":
                    replace(n, "getStateSuper", "(" + t + "I)Ljava/lang/Thread$State;", "CALL", "java.lang.Thread.getState");
                    return true;
                default: return false;
            }
        }

        /** Thread operations: true when replaced. */
        boolean thread(MethodInsnNode n) {
            String key = n.name + n.desc;
            String t = "Ljava/lang/Thread;";
            if (n.getOpcode() == Opcodes.INVOKESTATIC) {
                switch (key) {
                    case "holdsLock(Ljava/lang/Object;)Z": replace(n, "holdsLock", "(Ljava/lang/Object;)Z", null, null); return true;
                    case "sleep(J)V": replace(n, "sleep", "(JI)V", "SLEEP", "-"); return true;
                    case "sleep(JI)V": replace(n, "sleep", "(JII)V", "SLEEP", "-"); return true;
                    case "yield()V": replace(n, "yield", "(I)V", "YIELD", "-"); return true;
                    case "onSpinWait()V": replace(n, "yield", "(I)V", "YIELD", "-"); return true;
                    case "interrupted()Z": replace(n, "interrupted", "(I)Z", "INTERRUPTED", "-"); return true;
                    default: return false;
                }
            }
            if (n.getOpcode() != Opcodes.INVOKEVIRTUAL) {
                return false;
            }
            switch (key) {
                case "start()V": replace(n, "start", "(" + t + "I)V", "START", "-"); return true;
                case "join()V": replace(n, "join", "(" + t + "I)V", "JOIN", "-"); return true;
                case "join(J)V": replace(n, "join", "(" + t + "JI)V", "JOIN", "-"); return true;
                case "join(JI)V": replace(n, "join", "(" + t + "JII)V", "JOIN", "-"); return true;
                case "interrupt()V": replace(n, "interrupt", "(" + t + "I)V", "INTERRUPT", "-"); return true;
                case "isInterrupted()Z": replace(n, "isInterrupted", "(" + t + "I)Z", "INTERRUPTED", "-"); return true;
                case "isAlive()Z": replace(n, "isAlive", "(" + t + "I)Z", "ALIVE", "-"); return true;
                case "getState()Ljava/lang/Thread$State;":
                    replace(n, "getState", "(" + t + "I)Ljava/lang/Thread$State;", "CALL", "java.lang.Thread.getState");
                    return true;
                default: return false;
            }
        }

        static boolean atomicCall(String owner) {
            if (!owner.startsWith("java/util/")) {
                return false;
            }
            if (owner.startsWith("java/util/concurrent/")) {
                return true;
            }
            if (owner.indexOf('/', "java/util/".length()) >= 0) {
                return false; // stream, function, regex, logging, zip, ...
            }
            switch (owner) {
                case "java/util/Objects":
                case "java/util/Optional":
                case "java/util/OptionalInt":
                case "java/util/OptionalLong":
                case "java/util/OptionalDouble":
                case "java/util/Locale":
                case "java/util/Formatter":
                case "java/util/StringJoiner":
                case "java/util/UUID":
                case "java/util/Base64":
                case "java/util/Scanner":
                    return false;
                default:
                    return true;
            }
        }

        /**
         * A point before the call (unless {@code site} < 0), then the call as one atomic step (no
         * switches inside). An instance call's point gets its receiver: the object whose state
         * the call reads or writes, for the trace (the arguments wait in fresh locals meanwhile).
         */
        void bracket(MethodInsnNode n, int site) {
            LabelNode begin = new LabelNode();
            LabelNode end = new LabelNode();
            LabelNode handler = new LabelNode();
            LabelNode after = new LabelNode();
            InsnList pre = new InsnList();
            if (site >= 0 && n.getOpcode() != Opcodes.INVOKESTATIC) {
                Type[] args = Type.getArgumentTypes(n.desc);
                int[] slots = new int[args.length];
                for (int i = 0; i < args.length; i++) {
                    slots[i] = m.maxLocals;
                    m.maxLocals += args[i].getSize();
                }
                for (int i = args.length - 1; i >= 0; i--) {
                    pre.add(new VarInsnNode(args[i].getOpcode(Opcodes.ISTORE), slots[i]));
                }
                pre.add(new InsnNode(Opcodes.DUP));
                pre.add(ldc(site));
                pre.add(rt("callBegin", "(Ljava/lang/Object;I)V"));
                for (int i = 0; i < args.length; i++) {
                    pre.add(new VarInsnNode(args[i].getOpcode(Opcodes.ILOAD), slots[i]));
                }
            } else if (site >= 0) {
                pre.add(ldc(site));
                pre.add(rt("callBegin", "(I)V"));
            } else {
                pre.add(rt("clinitEnter", "()V")); // suppression only
            }
            pre.add(begin);
            insns.insertBefore(n, pre);
            InsnList post = new InsnList();
            post.add(end);
            post.add(rt("callEnd", "()V"));
            post.add(new JumpInsnNode(Opcodes.GOTO, after));
            post.add(handler);
            post.add(rt("callEnd", "()V"));
            post.add(new InsnNode(Opcodes.ATHROW));
            post.add(after);
            insns.insert(n, post);
            inner.add(new TryCatchBlockNode(begin, end, handler, null));
        }
    }
}
