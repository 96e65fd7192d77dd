package racelens.agent.instrument;

import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * Patches {@code java.lang.Thread} (by retransformation): {@code start()} tells racelens where a
 * thread is started (to name it if it runs project code out of control), {@code run()} makes a started
 * controlled thread wait for its turn before it runs anything, {@code exit()} tells the
 * scheduler that a thread ends, and {@code dispatchUncaughtException} hands uncaught exceptions of controlled
 * threads to racelens (which records them instead of printing them).
 */
public final class ThreadPatch {
    private ThreadPatch() {}

    public static byte[] patch(byte[] bytes) {
        ClassReader reader = new ClassReader(bytes);
        ClassWriter writer = new ClassWriter(reader, ClassWriter.COMPUTE_MAXS);
        int[] found = new int[1];
        reader.accept(new ClassVisitor(Opcodes.ASM9, writer) {
            @Override
            public MethodVisitor visitMethod(int access, String name, String desc, String sig, String[] exc) {
                MethodVisitor mv = super.visitMethod(access, name, desc, sig, exc);
                if (name.equals("exit") && desc.equals("()V")) {
                    found[0]++;
                    return callFirst(mv, "threadExit", true);
                }
                if (name.equals("start") && desc.equals("()V")) {
                    found[0]++;
                    return callFirst(mv, "threadStarting", true);
                }
                if (name.equals("run") && desc.equals("()V")) {
                    found[0]++;
                    return callFirst(mv, "threadBegin", false);
                }
                if (name.equals("dispatchUncaughtException") && desc.equals("(Ljava/lang/Throwable;)V")) {
                    found[0]++;
                    return new MethodVisitor(Opcodes.ASM9, mv) {
                        @Override
                        public void visitCode() {
                            super.visitCode();
                            Label go = new Label();
                            super.visitVarInsn(Opcodes.ALOAD, 0);
                            super.visitVarInsn(Opcodes.ALOAD, 1);
                            super.visitMethodInsn(Opcodes.INVOKESTATIC, Instrumenter.RT, "uncaught",
                                    "(Ljava/lang/Thread;Ljava/lang/Throwable;)Z", false);
                            super.visitJumpInsn(Opcodes.IFEQ, go);
                            super.visitInsn(Opcodes.RETURN);
                            super.visitLabel(go);
                            super.visitFrame(Opcodes.F_NEW, 2, new Object[] {"java/lang/Thread", "java/lang/Throwable"}, 0, new Object[0]);
                        }
                    };
                }
                return mv;
            }
        }, ClassReader.EXPAND_FRAMES);
        if (found[0] != 4) {
            throw new IllegalStateException("java.lang.Thread has no start()/run()/exit()/dispatchUncaughtException(Throwable) to patch");
        }
        return writer.toByteArray();
    }

    /** {@code mv}, whose method first calls {@code Rt.<hook>}: with the thread ({@code this}) when {@code withThread}, else with nothing. */
    private static MethodVisitor callFirst(MethodVisitor mv, String hook, boolean withThread) {
        return new MethodVisitor(Opcodes.ASM9, mv) {
            @Override
            public void visitCode() {
                super.visitCode();
                if (withThread) {
                    super.visitVarInsn(Opcodes.ALOAD, 0);
                }
                super.visitMethodInsn(Opcodes.INVOKESTATIC, Instrumenter.RT, hook, withThread ? "(Ljava/lang/Thread;)V" : "()V", false);
            }
        };
    }
}
