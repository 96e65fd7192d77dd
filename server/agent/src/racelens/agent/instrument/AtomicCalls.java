package racelens.agent.instrument;

import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.InsnList;
import org.objectweb.asm.tree.InsnNode;
import org.objectweb.asm.tree.JumpInsnNode;
import org.objectweb.asm.tree.LabelNode;
import org.objectweb.asm.tree.MethodInsnNode;
import org.objectweb.asm.tree.TryCatchBlockNode;
import org.objectweb.asm.tree.VarInsnNode;
import racelens.rt.Sites;

import static racelens.agent.instrument.MethodContext.ldc;
import static racelens.agent.instrument.MethodContext.rt;

/**
 * Calls into library code the agent does not rewrite, run as one atomic step: {@code
 * Rt.callBegin} (a CALL site, a point on the receiver) before the call, {@code Rt.callEnd} after
 * it and in a handler innermost in the exception table. No thread switches inside, since the
 * JDK may hold a lock of its own there that the scheduler does not know about while it calls back
 * into the project's code. The bracket is shared: the {@code java.util.concurrent} redirects put
 * theirs around the models' final methods too.
 */
final class AtomicCalls {
    private final MethodContext x;

    AtomicCalls(MethodContext x) {
        this.x = x;
    }

    /**
     * The last step of a call no other rewriter took: a bracket when its owner is a library's.
     * {@code name}: the method's name as written (its site names it so, even when a parallel
     * stream's call was renamed).
     */
    void call(MethodInsnNode n, String name) {
        String owner = n.owner;
        if (atomicCall(owner) && x.superCalled) {
            // A library's calls are no points, but stay atomic: a callback of the project's
            // inside them must not switch while the JDK holds a lock of its own.
            int site = x.c.syncOnly ? -1 : x.site("CALL", owner.replace('/', '.') + "." + name);
            if (site >= 0 && resultDropped(n)) {
                Sites.resultUnused(site);
            }
            bracket(n, site);
        } else if (holdsRealLocks(owner) && x.superCalled) {
            bracket(n, -1);
        }
    }

    /** Whether a call to {@code owner} (a JDK class) gets a CALL point and runs atomically. */
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
     * JDK code that calls back into application code while it holds a real lock
     * ({@code println(obj)} calls {@code obj.toString()} inside the stream's monitor): such
     * calls run as one atomic step too, but without a scheduling point of their own.
     */
    static boolean holdsRealLocks(String owner) {
        return owner.startsWith("java/io/") || owner.startsWith("java/nio/") || owner.startsWith("java/util/logging/")
                || owner.equals("java/lang/StringBuffer") || owner.equals("java/lang/Throwable");
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
                slots[i] = x.m.maxLocals;
                x.m.maxLocals += args[i].getSize();
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
        x.insns.insertBefore(n, pre);
        InsnList post = new InsnList();
        post.add(end);
        post.add(rt("callEnd", "()V"));
        post.add(new JumpInsnNode(Opcodes.GOTO, after));
        post.add(handler);
        post.add(rt("callEnd", "()V"));
        post.add(new InsnNode(Opcodes.ATHROW));
        post.add(after);
        x.insns.insert(n, post);
        x.inner.add(new TryCatchBlockNode(begin, end, handler, null));
    }
}
