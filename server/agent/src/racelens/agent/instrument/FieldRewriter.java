package racelens.agent.instrument;

import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;
import org.objectweb.asm.tree.FieldInsnNode;
import org.objectweb.asm.tree.InsnList;
import org.objectweb.asm.tree.InsnNode;
import org.objectweb.asm.tree.VarInsnNode;

import static racelens.agent.instrument.MethodContext.ldc;
import static racelens.agent.instrument.MethodContext.rt;

/**
 * Shared memory: a scheduling point ({@code Rt.point}, a READ/WRITE or AREAD/AWRITE site)
 * before each access to a field that is not final and to an array element, with the object
 * accessed when it can be passed (the trace's effects name it), and {@code Rt.value} with the
 * value read or written (full-mode E lines). These are where the threads' interleavings differ
 * in what they compute. A library class ({@code syncOnly}) gets none of this (the dispatcher
 * does not call it there; see {@link Instrumenter#instrument}).
 */
final class FieldRewriter {
    private final MethodContext x;
    /** Two local slots for a value that waits while its object is pushed again, or -1. */
    private int temp = -1;

    FieldRewriter(MethodContext x) {
        this.x = x;
    }

    private int temp() {
        if (temp < 0) {
            temp = x.m.maxLocals;
            x.m.maxLocals += 2;
        }
        return temp;
    }

    void field(FieldInsnNode f) {
        Instrumenter.ClassAdapter c = x.c;
        String name = f.name;
        int op0 = f.getOpcode();
        boolean ownInitialised = f.owner.equals(c.className) && (x.ctor || x.isStatic());
        if ((op0 == Opcodes.GETSTATIC || op0 == Opcodes.PUTSTATIC) && !ownInitialised && StaticReset.isResettable(f.owner, c.loader)) {
            // A static field of another class (or read by an instance method): initialise it first.
            x.insns.insertBefore(f, StaticReset.guard(f.owner));
        }
        // compiler-made fields no other thread writes
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
        int site = x.site(write ? "WRITE" : "READ", f.owner.replace('/', '.') + "." + name);
        InsnList l = new InsnList();
        if (op == Opcodes.GETSTATIC || op == Opcodes.PUTSTATIC || !x.superCalled) {
            l.add(ldc(site));
            l.add(rt("point", "(I)V"));
        } else if (op == Opcodes.GETFIELD) {
            l.add(new InsnNode(Opcodes.DUP));
            l.add(ldc(site));
            l.add(rt("point", "(Ljava/lang/Object;I)V"));
        } else {
            // PUTFIELD: the object is under the value
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
            x.insns.insertBefore(f, l);
        } else {
            x.insns.insertBefore(f, l);
            x.insns.insert(f, valueHook(vt));
        }
    }

    /** Array element loads and stores; any other instruction is left as it is. */
    void arrayAccess(InsnNode n) {
        int op = n.getOpcode();
        if (op >= Opcodes.IALOAD && op <= Opcodes.SALOAD) {
            InsnList l = new InsnList();
            l.add(new InsnNode(Opcodes.DUP2));
            l.add(new InsnNode(Opcodes.POP));
            l.add(ldc(x.site("AREAD", "-")));
            l.add(rt("point", "(Ljava/lang/Object;I)V"));
            x.insns.insertBefore(n, l);
            x.insns.insert(n, valueHook(arrayElement(op)));
        } else if (op >= Opcodes.IASTORE && op <= Opcodes.SASTORE) {
            int store;
            switch (op) {
                case Opcodes.LASTORE: store = Opcodes.LSTORE; break;
                case Opcodes.FASTORE: store = Opcodes.FSTORE; break;
                case Opcodes.DASTORE: store = Opcodes.DSTORE; break;
                case Opcodes.AASTORE: store = Opcodes.ASTORE; break;
                default: store = Opcodes.ISTORE; break;
            }
            // the value waits in a local while the array is passed to the point
            int tmp = temp();
            InsnList l = new InsnList();
            l.add(new VarInsnNode(store, tmp));
            l.add(new InsnNode(Opcodes.DUP2));
            l.add(new InsnNode(Opcodes.POP));
            l.add(ldc(x.site("AWRITE", "-")));
            l.add(rt("point", "(Ljava/lang/Object;I)V"));
            l.add(new VarInsnNode(store - Opcodes.ISTORE + Opcodes.ILOAD, tmp));
            l.add(valueHook(arrayElement(op)));
            x.insns.insertBefore(n, l);
        }
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
}
