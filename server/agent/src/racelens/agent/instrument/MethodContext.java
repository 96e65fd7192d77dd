package racelens.agent.instrument;

import java.util.ArrayList;
import java.util.List;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.InsnList;
import org.objectweb.asm.tree.LdcInsnNode;
import org.objectweb.asm.tree.MethodInsnNode;
import org.objectweb.asm.tree.MethodNode;
import org.objectweb.asm.tree.TryCatchBlockNode;
import racelens.rt.Sites;

/**
 * What the rewriters of one method body share: the class and the method being transformed, the
 * source line of the instruction at hand (sites name it), whether the object under construction
 * may be passed around yet, and the exception handlers added so far. One per transformation of a
 * method body ({@link MethodTransform}); the rewriters read and update it as they visit the
 * instructions in order, so sites are registered in instruction order, as the controller's
 * site numbers expect of two runs of the same class.
 */
final class MethodContext {
    final Instrumenter.ClassAdapter c;
    final MethodNode m;
    final InsnList insns;
    final boolean ctor;
    /** Handlers that go before the method's own in the exception table (innermost: atomic calls). */
    final List<TryCatchBlockNode> inner = new ArrayList<>();
    /** Handlers that go after them (outermost: the whole body's wrap). */
    final List<TryCatchBlockNode> outer = new ArrayList<>();
    /** The source line of the instruction being rewritten (the method's first line before any). */
    int line;
    /**
     * False in a constructor until its {@code super(...)} or {@code this(...)} returns: until
     * then {@code this} may not be passed to a hook, and calls get no points.
     */
    boolean superCalled;

    MethodContext(Instrumenter.ClassAdapter c, MethodNode m) {
        this.c = c;
        this.m = m;
        this.insns = m.instructions;
        this.ctor = m.name.equals("<init>");
        this.superCalled = !ctor;
    }

    /** Registers a site at the current line of this method. */
    int site(String op, String target) {
        return Sites.register(c.dotted, m.name, line, op, target);
    }

    boolean isStatic() {
        return (m.access & Opcodes.ACC_STATIC) != 0;
    }

    /** Puts the added handlers around the method's own: {@link #inner} first, {@link #outer} last. */
    void placeHandlers() {
        if (!inner.isEmpty() || !outer.isEmpty()) {
            List<TryCatchBlockNode> all = new ArrayList<>(inner);
            all.addAll(m.tryCatchBlocks);
            all.addAll(outer);
            m.tryCatchBlocks = all;
        }
    }

    static AbstractInsnNode ldc(int v) {
        return new LdcInsnNode(v);
    }

    /** A static call of {@code racelens.rt.Rt}. */
    static MethodInsnNode rt(String name, String desc) {
        return new MethodInsnNode(Opcodes.INVOKESTATIC, Instrumenter.RT, name, desc, false);
    }
}
