package racelens.agent.instrument;

import java.lang.invoke.LambdaMetafactory;
import org.objectweb.asm.Handle;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;
import org.objectweb.asm.tree.InsnNode;
import org.objectweb.asm.tree.InvokeDynamicInsnNode;
import org.objectweb.asm.tree.LabelNode;
import org.objectweb.asm.tree.LineNumberNode;
import org.objectweb.asm.tree.MethodInsnNode;
import org.objectweb.asm.tree.MethodNode;
import org.objectweb.asm.tree.TypeInsnNode;
import org.objectweb.asm.tree.VarInsnNode;

/**
 * Method references ({@code lock::hasQueuedThreads}, {@code Thread::start},
 * {@code ReentrantLock::new}) to a method the instrumenter replaces or brackets when it is called
 * directly: the JDK's lambda class would call it itself, out of racelens's sight (a real
 * {@code Thread.start}, the JDK's final query of an empty queue). Such a reference becomes a
 * reference to a synthetic static method of the class ({@code lambda$racelens$N}) whose body is
 * the plain call, which the instrumenter then treats as any other call of application code.
 * Serializable lambdas keep their reference (their deserialization names it).
 */
final class MethodRefs {
    private MethodRefs() {}

    static final String PREFIX = "lambda$racelens$";

    /** The implementation handle of {@code indy} when it is a method reference that needs a bridge, else null. */
    static Handle target(InvokeDynamicInsnNode indy, String className, ClassLoader loader) {
        Handle bsm = indy.bsm;
        if (!bsm.getOwner().equals("java/lang/invoke/LambdaMetafactory") || indy.bsmArgs.length < 3) {
            return null;
        }
        if (bsm.getName().equals("altMetafactory")) {
            if (indy.bsmArgs.length < 4 || !(indy.bsmArgs[3] instanceof Integer)
                    || ((Integer) indy.bsmArgs[3] & LambdaMetafactory.FLAG_SERIALIZABLE) != 0) {
                return null;
            }
        } else if (!bsm.getName().equals("metafactory")) {
            return null;
        }
        if (!(indy.bsmArgs[1] instanceof Handle)) {
            return null;
        }
        Handle impl = (Handle) indy.bsmArgs[1];
        String owner = impl.getOwner();
        if (owner.equals(className) || owner.startsWith("[")) {
            return null; // a lambda's body (instrumented where it is), or an array's clone
        }
        switch (impl.getTag()) {
            case Opcodes.H_INVOKEVIRTUAL:
            case Opcodes.H_INVOKEINTERFACE:
            case Opcodes.H_INVOKESTATIC:
            case Opcodes.H_NEWINVOKESPECIAL:
                break;
            default:
                return null; // super::m needs the caller's own invokespecial
        }
        if (isProtected(impl, loader)) {
            return null; // only the class's own code may call it on that receiver
        }
        return needsBridge(impl, loader) ? impl : null;
    }

    private static boolean isProtected(Handle impl, ClassLoader loader) {
        String key = impl.getName() + impl.getDesc();
        for (String c = impl.getOwner(); c != null;) {
            ClassInfo info = ClassInfo.of(c, loader);
            if (info == null) {
                return true; // cannot tell: leave it alone
            }
            Integer access = info.methods.get(key);
            if (access != null) {
                return (access & Opcodes.ACC_PROTECTED) != 0;
            }
            c = info.superName;
        }
        return false;
    }

    /** Whether a direct call of {@code impl} is one the instrumenter replaces, redirects or brackets. */
    private static boolean needsBridge(Handle impl, ClassLoader loader) {
        String owner = impl.getOwner();
        String name = impl.getName();
        if (impl.getTag() == Opcodes.H_NEWINVOKESPECIAL) {
            return ConcurrentRedirects.MODELS.containsKey(owner) || owner.equals("java/util/Random") || owner.equals("java/util/Date");
        }
        switch (owner) {
            case "java/lang/Thread":
                return true;
            case "java/lang/Object":
                return name.equals("wait") || name.equals("notify") || name.equals("notifyAll");
            case "java/lang/System":
                return name.equals("nanoTime") || name.equals("currentTimeMillis") || name.equals("exit");
            case "java/lang/Runtime":
                return name.equals("exit") || name.equals("halt");
            case "java/lang/Math":
            case "java/lang/StrictMath":
                return name.equals("random");
            default:
                break;
        }
        if (owner.startsWith("java/")) {
            return AtomicCalls.atomicCall(owner);
        }
        return JdkApi.family(owner, loader) != null || ClassInfo.isSubclass(owner, "java/lang/Thread", loader)
                || ClassInfo.isSubclass(owner, "java/util/concurrent/ForkJoinTask", loader);
    }

    /**
     * The descriptor of the bridge of {@code impl}: its receiver (if any) first, then its
     * arguments; the captured ones typed exactly as {@code indy} passes them (the lambda
     * factory wants those to match a static implementation's).
     */
    static String bridgeDesc(Handle impl, InvokeDynamicInsnNode indy) {
        String own;
        switch (impl.getTag()) {
            case Opcodes.H_INVOKESTATIC:
                own = impl.getDesc();
                break;
            case Opcodes.H_NEWINVOKESPECIAL:
                own = impl.getDesc().substring(0, impl.getDesc().indexOf(')') + 1) + "L" + impl.getOwner() + ";";
                break;
            default:
                own = JdkApi.staticDesc(impl.getOwner(), impl.getDesc());
                break;
        }
        Type[] params = Type.getArgumentTypes(own);
        Type[] captured = Type.getArgumentTypes(indy.desc);
        System.arraycopy(captured, 0, params, 0, Math.min(captured.length, params.length));
        return Type.getMethodDescriptor(Type.getReturnType(own), params);
    }

    /** The bridge's body: the plain call of {@code impl} at {@code line} (the reference's line), not yet instrumented. */
    static MethodNode bridge(int access, String name, Handle impl, String desc, int line) {
        MethodNode m = new MethodNode(Opcodes.ASM9, access, name, desc, null, null);
        LabelNode start = new LabelNode();
        m.instructions.add(start);
        m.instructions.add(new LineNumberNode(Math.max(line, 1), start));
        Type[] args = Type.getArgumentTypes(desc);
        boolean ctor = impl.getTag() == Opcodes.H_NEWINVOKESPECIAL;
        if (ctor) {
            m.instructions.add(new TypeInsnNode(Opcodes.NEW, impl.getOwner()));
            m.instructions.add(new InsnNode(Opcodes.DUP));
        }
        int slot = 0;
        for (Type t : args) {
            m.instructions.add(new VarInsnNode(t.getOpcode(Opcodes.ILOAD), slot));
            slot += t.getSize();
        }
        int op;
        switch (impl.getTag()) {
            case Opcodes.H_INVOKESTATIC: op = Opcodes.INVOKESTATIC; break;
            case Opcodes.H_INVOKEINTERFACE: op = Opcodes.INVOKEINTERFACE; break;
            case Opcodes.H_NEWINVOKESPECIAL: op = Opcodes.INVOKESPECIAL; break;
            default: op = Opcodes.INVOKEVIRTUAL; break;
        }
        m.instructions.add(new MethodInsnNode(op, impl.getOwner(), impl.getName(), impl.getDesc(), impl.isInterface()));
        Type ret = Type.getReturnType(desc);
        m.instructions.add(new InsnNode(ret.getOpcode(Opcodes.IRETURN)));
        m.maxLocals = slot;
        m.maxStack = slot + 2;
        return m;
    }
}
