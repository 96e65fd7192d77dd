package racelens.agent.instrument;

import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.InsnList;
import org.objectweb.asm.tree.InsnNode;
import org.objectweb.asm.tree.LabelNode;
import org.objectweb.asm.tree.LdcInsnNode;
import org.objectweb.asm.tree.TryCatchBlockNode;
import org.objectweb.asm.tree.VarInsnNode;

import static racelens.agent.instrument.MethodContext.ldc;
import static racelens.agent.instrument.MethodContext.rt;

/**
 * Monitors: {@code monitorenter}/{@code monitorexit} become {@code Rt.monitorEnter} (a LOCK site)
 * and {@code Rt.monitorExit}, and a {@code synchronized} method loses the flag (the class
 * visitor removes it) and gets the same calls around its whole body. Monitors are model-only:
 * a controlled thread never blocks on a JDK monitor, so the scheduler decides who gets it and
 * sees who waits for it. A class initialiser's body is wrapped the same way, in {@code
 * Rt.clinitEnter}/{@code clinitExit}: it runs without switches (the JVM's initialisation lock
 * must not be held by a thread that waits for its turn).
 */
final class MonitorRewriter {
    private final MethodContext x;

    MonitorRewriter(MethodContext x) {
        this.x = x;
    }

    /** {@code monitorenter} and {@code monitorexit}: true when {@code n} was one. */
    boolean instruction(InsnNode n) {
        int op = n.getOpcode();
        if (op == Opcodes.MONITORENTER) {
            InsnList l = new InsnList();
            l.add(ldc(x.site("LOCK", "-")));
            l.add(rt("monitorEnter", "(Ljava/lang/Object;I)V"));
            x.insns.insertBefore(n, l);
            x.insns.remove(n);
            return true;
        }
        if (op == Opcodes.MONITOREXIT) {
            x.insns.set(n, rt("monitorExit", "(Ljava/lang/Object;)V"));
            return true;
        }
        return false;
    }

    /** A {@code synchronized} method: its body inside the model monitor of {@code this} or of its class. */
    void synchronizedMethod() {
        boolean isStatic = x.isStatic();
        Instrumenter.ClassAdapter c = x.c;
        wrap(() -> isStatic ? new LdcInsnNode(Type.getObjectType(c.className)) : new VarInsnNode(Opcodes.ALOAD, 0),
                x.site("LOCK", isStatic ? c.dotted + ".class" : "this"));
    }

    /** A class initialiser (or the copy the static reset runs): its body as one atomic step. */
    void classInitializer() {
        wrap(null, 0);
    }

    interface LockPush {
        AbstractInsnNode push();
    }

    /**
     * Wraps the whole body: model monitor enter/exit (lock != null) or class-init suppression.
     * Every return and, through a handler outermost in the exception table, every throw leaves
     * it.
     */
    private void wrap(LockPush lock, int site) {
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
        for (AbstractInsnNode n : x.insns.toArray()) {
            int op = n.getOpcode();
            if (op >= Opcodes.IRETURN && op <= Opcodes.RETURN) {
                x.insns.insertBefore(n, exitCall(lock));
            }
        }
        x.insns.insert(pre);
        x.insns.add(end);
        x.insns.add(handler);
        x.insns.add(exitCall(lock));
        x.insns.add(new InsnNode(Opcodes.ATHROW));
        x.outer.add(new TryCatchBlockNode(start, end, handler, null));
    }

    private static InsnList exitCall(LockPush lock) {
        InsnList l = new InsnList();
        if (lock != null) {
            l.add(lock.push());
            l.add(rt("monitorExit", "(Ljava/lang/Object;)V"));
        } else {
            l.add(rt("clinitExit", "()V"));
        }
        return l;
    }
}
