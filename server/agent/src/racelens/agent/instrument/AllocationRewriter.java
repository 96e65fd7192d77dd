package racelens.agent.instrument;

import java.util.ArrayList;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.InsnList;
import org.objectweb.asm.tree.InsnNode;
import org.objectweb.asm.tree.MethodInsnNode;
import org.objectweb.asm.tree.TypeInsnNode;
import org.objectweb.asm.tree.VarInsnNode;

import static racelens.agent.instrument.MethodContext.ldc;
import static racelens.agent.instrument.MethodContext.rt;

/**
 * Allocations and constructor calls: each new object and array is named ({@code Rt.born}, a NEW
 * site) as soon as it exists, so that the trace can say which object an access touches in terms
 * every schedule agrees on; a constructor's {@code super(...)} marks the point from which
 * {@code this} may be passed to the hooks. What a constructor call becomes otherwise (a model's,
 * the logical clock's {@code Date}, a seeded {@code Random}) is the business of {@link
 * ConcurrentRedirects} and {@link ThreadCallRewriter}; this class pairs each call with its
 * {@code new}.
 */
final class AllocationRewriter {
    private final MethodContext x;
    private final ConcurrentRedirects redirects;
    private final ThreadCallRewriter threads;
    /** Pending NEW types of the constructor calls not yet reached (javac nests them). */
    private final ArrayList<String> pendingNew = new ArrayList<>();

    AllocationRewriter(MethodContext x, ConcurrentRedirects redirects, ThreadCallRewriter threads) {
        this.x = x;
        this.redirects = redirects;
        this.threads = threads;
    }

    /** {@code new} (remembered for its constructor call; a model's when modelled) and {@code anewarray}. */
    void type(TypeInsnNode t) {
        if (t.getOpcode() == Opcodes.ANEWARRAY) {
            born(t);
        }
        if (t.getOpcode() != Opcodes.NEW) {
            return;
        }
        pendingNew.add(t.desc);
        ConcurrentRedirects.newInstance(t);
    }

    void constructorCall(MethodInsnNode n) {
        if (pendingNew.isEmpty()) {
            // super(...) or this(...): the object is initialised from here on, and named
            // before its own constructor touches it (the name is given once).
            if (x.ctor && !x.superCalled && x.c.tagged) {
                InsnList l = new InsnList();
                l.add(new VarInsnNode(Opcodes.ALOAD, 0));
                l.add(rt("born", "(Ljava/lang/Object;)V"));
                x.insns.insert(n, l);
            }
            x.superCalled = true;
            redirects.superCall(n);
            return;
        }
        String created = pendingNew.remove(pendingNew.size() - 1);
        born(n);
        if (!ConcurrentRedirects.constructor(n, created)) {
            threads.constructor(n, created);
        }
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
        if (x.c.syncOnly) {
            return; // a library's objects are named when the project's code first touches them
        }
        InsnList l = new InsnList();
        l.add(new InsnNode(Opcodes.DUP));
        l.add(ldc(x.site("NEW", "-")));
        l.add(rt("born", "(Ljava/lang/Object;I)V"));
        x.insns.insert(n, l);
    }
}
