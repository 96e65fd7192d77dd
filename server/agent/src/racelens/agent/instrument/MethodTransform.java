package racelens.agent.instrument;

import java.util.HashSet;
import java.util.Set;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.FieldInsnNode;
import org.objectweb.asm.tree.InsnNode;
import org.objectweb.asm.tree.InvokeDynamicInsnNode;
import org.objectweb.asm.tree.JumpInsnNode;
import org.objectweb.asm.tree.LabelNode;
import org.objectweb.asm.tree.LineNumberNode;
import org.objectweb.asm.tree.MethodInsnNode;
import org.objectweb.asm.tree.MethodNode;
import org.objectweb.asm.tree.MultiANewArrayInsnNode;
import org.objectweb.asm.tree.TypeInsnNode;

import static racelens.agent.instrument.MethodContext.rt;

/**
 * The transformation of one method body: one pass over its instructions that hands each to the
 * rewriter of its concern ({@link MonitorRewriter}, {@link FieldRewriter}, {@link
 * AllocationRewriter}, {@link ThreadCallRewriter}, {@link ConcurrentRedirects}, {@link
 * AtomicCalls}), then the rewrites of the whole body. A single pass in instruction order, not one
 * pass per concern: sites are numbered as they are registered, and the numbers (and so the
 * agent's output) must not depend on how the rewriting is organised. The order of the steps
 * after the pass matters too: each of them inserts at the start of the body, so the last one
 * runs first.
 */
final class MethodTransform {
    final MethodContext x;
    final MonitorRewriter monitors;
    final FieldRewriter fields;
    final AtomicCalls atomic;
    final ConcurrentRedirects redirects;
    final ThreadCallRewriter threads;
    final AllocationRewriter allocations;

    MethodTransform(Instrumenter.ClassAdapter c, MethodNode m) {
        this.x = new MethodContext(c, m);
        this.monitors = new MonitorRewriter(x);
        this.fields = new FieldRewriter(x);
        this.atomic = new AtomicCalls(x);
        this.redirects = new ConcurrentRedirects(x, atomic);
        this.threads = new ThreadCallRewriter(x);
        this.allocations = new AllocationRewriter(x, redirects, threads);
    }

    void run() {
        MethodNode m = x.m;
        Instrumenter.ClassAdapter c = x.c;
        boolean sync = (m.access & Opcodes.ACC_SYNCHRONIZED) != 0;
        boolean clinit = m.name.equals("<clinit>") || m.name.equals(StaticReset.CLINIT_COPY);
        Set<LabelNode> seen = new HashSet<>();
        int first = firstLine();
        for (AbstractInsnNode n : x.insns.toArray()) {
            if (n instanceof LineNumberNode) {
                x.line = ((LineNumberNode) n).line;
                continue;
            }
            if (n instanceof LabelNode) {
                seen.add((LabelNode) n);
                continue;
            }
            if (x.line == 0) {
                x.line = first;
            }
            if (n instanceof FieldInsnNode) {
                if (!c.syncOnly) {
                    fields.field((FieldInsnNode) n);
                }
            } else if (n instanceof MethodInsnNode) {
                method((MethodInsnNode) n);
            } else if (n instanceof TypeInsnNode) {
                allocations.type((TypeInsnNode) n);
            } else if (n.getOpcode() == Opcodes.NEWARRAY || n instanceof MultiANewArrayInsnNode) {
                allocations.born(n);
            } else if (n instanceof InvokeDynamicInsnNode) {
                methodRef((InvokeDynamicInsnNode) n);
            } else if (n instanceof JumpInsnNode) {
                // a backward jump (to a label already passed): a loop's turn, counted for livelocks
                if (!c.syncOnly && seen.contains(((JumpInsnNode) n).label)) {
                    x.insns.insertBefore(n, rt("tick", "()V"));
                }
            } else if (n instanceof InsnNode) {
                // a library's array accesses are no points (see Instrumenter.instrument)
                if (!monitors.instruction((InsnNode) n) && !c.syncOnly) {
                    fields.arrayAccess((InsnNode) n);
                }
            }
        }
        if (sync) {
            x.line = first;
            monitors.synchronizedMethod();
        }
        if (clinit) {
            monitors.classInitializer();
        }
        threads.threadRun();
        x.placeHandlers();
        if (c.reset && (x.ctor || x.isStatic()) && !clinit) {
            // Where the JVM would initialise the class: its static methods and constructors.
            x.insns.insert(StaticReset.guard(c.className));
        }
    }

    /**
     * A call: the first rewriter that takes it. The order is the one the replacements depend
     * on: a thread's or the clock's call is replaced before a {@code java.util.concurrent} call
     * is redirected, and only a call nobody replaced is bracketed as a library's.
     */
    void method(MethodInsnNode n) {
        int op = n.getOpcode();
        if (op == Opcodes.INVOKESPECIAL && n.name.equals("<init>")) {
            allocations.constructorCall(n);
            return;
        }
        if (op == Opcodes.INVOKESPECIAL) {
            if (!threads.superCall(n)) {
                redirects.superCall(n);
            }
            return;
        }
        String name = n.name; // as written (a parallel stream's call is renamed on the way)
        if (threads.call(n) || redirects.call(n)) {
            return;
        }
        atomic.call(n, name);
    }

    /** A method reference the JDK's lambda would call out of sight: to a bridge of this class instead ({@link MethodRefs}). */
    void methodRef(InvokeDynamicInsnNode indy) {
        Instrumenter.ClassAdapter c = x.c;
        org.objectweb.asm.Handle impl = MethodRefs.target(indy, c.className, c.loader);
        if (impl == null) {
            return;
        }
        String name = MethodRefs.PREFIX + c.bridges.size();
        String desc = MethodRefs.bridgeDesc(impl, indy);
        // private in a class; an interface of a Java 8 class file may only have public ones
        int access = Opcodes.ACC_STATIC | Opcodes.ACC_SYNTHETIC
                | (c.isInterface && (c.version & 0xFFFF) < Opcodes.V9 ? Opcodes.ACC_PUBLIC : Opcodes.ACC_PRIVATE);
        c.bridges.add(MethodRefs.bridge(access, name, impl, desc, x.line));
        indy.bsmArgs[1] = new org.objectweb.asm.Handle(Opcodes.H_INVOKESTATIC, c.className, name, desc, c.isInterface);
    }

    int firstLine() {
        for (AbstractInsnNode n = x.insns.getFirst(); n != null; n = n.getNext()) {
            if (n instanceof LineNumberNode) {
                return ((LineNumberNode) n).line;
            }
        }
        return 0;
    }
}
