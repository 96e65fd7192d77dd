package racelens.agent.instrument;

import java.util.Set;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.tree.InsnList;
import org.objectweb.asm.tree.InsnNode;
import org.objectweb.asm.tree.MethodInsnNode;

import static racelens.agent.instrument.Instrumenter.MODEL;
import static racelens.agent.instrument.MethodContext.ldc;
import static racelens.agent.instrument.MethodContext.rt;

/**
 * Calls that block, wake, start or time threads, replaced by the runtime's versions (static calls
 * of {@code racelens.rt.Rt}, most with their site pushed last): {@code Object.wait/notify}, the
 * operations of {@code Thread} (and of its subclasses, and their {@code super} calls), {@code
 * LockSupport.park/unpark}, {@code TimeUnit.sleep/timedJoin/timedWait}, and the clocks and
 * other sources of nondeterminism ({@code System.nanoTime/currentTimeMillis}, {@code
 * java.time}'s {@code now}, {@code Calendar.getInstance}, {@code new Date()}, {@code new
 * Random()}, {@code Math.random}) and the exits ({@code System.exit}, {@code Runtime.exit/halt}).
 * The JDK's versions would block a controlled thread out of the scheduler's sight or make two
 * runs of one schedule differ; the runtime's block through the scheduler and read the logical
 * clock and the execution's seed.
 */
final class ThreadCallRewriter {
    private final MethodContext x;

    ThreadCallRewriter(MethodContext x) {
        this.x = x;
    }

    /** An {@code invokespecial} that is not a constructor call: true when replaced. */
    boolean superCall(MethodInsnNode n) {
        return isThread(n.owner) && threadSuper(n);
    }

    /**
     * A call that is not {@code invokespecial}: true when it was replaced, or needs nothing
     * more (any other call of {@code System}).
     */
    boolean call(MethodInsnNode n) {
        String owner = n.owner;
        String name = n.name;
        String desc = n.desc;
        int op = n.getOpcode();
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
                    return true;
                }
            }
        }
        if (owner.equals("java/lang/System")) {
            switch (name + desc) {
                case "arraycopy(Ljava/lang/Object;ILjava/lang/Object;II)V": replace(n, "arraycopy", desc, null, null); return true;
                case "exit(I)V": replace(n, "exit", "(I)V", null, null); return true;
                case "nanoTime()J": replace(n, "nanoTime", "()J", null, null); return true;
                case "currentTimeMillis()J": replace(n, "currentTimeMillis", "()J", null, null); return true;
                default: return true; // System's other methods: left as they are, outside any bracket
            }
        }
        if (owner.startsWith("java/time/") && op == Opcodes.INVOKESTATIC && javaTime(n)) {
            return true;
        }
        if (owner.equals("java/util/Calendar") && op == Opcodes.INVOKESTATIC && name.equals("getInstance")) {
            // now, on the logical clock: the JDK's reads the wall clock inside
            InsnList now = new InsnList();
            now.add(new InsnNode(Opcodes.DUP));
            now.add(rt("currentTimeMillis", "()J"));
            now.add(new MethodInsnNode(Opcodes.INVOKEVIRTUAL, "java/util/Calendar", "setTimeInMillis", "(J)V", false));
            x.insns.insert(n, now);
            return true;
        }
        if (owner.equals("java/lang/Runtime") && (name + desc).matches("(exit|halt)\\(I\\)V")) {
            replace(n, name, "(Ljava/lang/Runtime;I)V", null, null);
            return true;
        }
        if ((owner.equals("java/lang/Math") || owner.equals("java/lang/StrictMath")) && name.equals("random")) {
            replace(n, "mathRandom", "()D", null, null);
            return true;
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
                    return true;
                default: break;
            }
            if (repl != null) {
                replace(n, name, repl, name.startsWith("unpark") ? "UNPARK" : "PARK", "-");
                return true;
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
                x.insns.insertBefore(n, ldc(x.site(name.equals("sleep") ? "SLEEP" : name.equals("timedJoin") ? "JOIN" : "WAIT", "-")));
                x.insns.set(n, new MethodInsnNode(Opcodes.INVOKESTATIC, MODEL + "Models", "unit" + name, repl, false));
                return true;
            }
        }
        if (isThread(owner) && thread(n)) {
            return true;
        }
        return false;
    }

    /**
     * The constructor call of an object created by {@code new created}: {@code new Date()}
     * and {@code new Random()} read the logical clock and the execution's seed. True when so.
     */
    boolean constructor(MethodInsnNode n, String created) {
        if (created.equals("java/util/Date") && n.owner.equals("java/util/Date") && n.desc.equals("()V")) {
            // now, on the logical clock (as System.currentTimeMillis() is): Timer.schedule(task, Date)
            x.insns.insertBefore(n, rt("currentTimeMillis", "()J"));
            n.desc = "(J)V";
            return true;
        }
        if (created.equals("java/util/Random") && n.owner.equals("java/util/Random") && n.desc.equals("()V")) {
            x.insns.insertBefore(n, rt("seed", "()J"));
            n.desc = "(J)V";
            return true;
        }
        return false;
    }

    /** A {@code Thread} subclass's {@code run()}: the thread waits for its turn before anything else. */
    void threadRun() {
        if (x.m.name.equals("run") && x.m.desc.equals("()V") && (x.m.access & Opcodes.ACC_STATIC) == 0
                && ClassInfo.isSubclass(x.c.superName, "java/lang/Thread", x.c.loader)) {
            x.insns.insert(rt("threadBegin", "()V"));
        }
    }

    /** Replaces {@code n} by a static call into Rt, with the site pushed last when {@code op} != null. */
    void replace(MethodInsnNode n, String name, String desc, String op, String target) {
        if (op != null) {
            x.insns.insertBefore(n, ldc(x.site(op, target)));
        }
        x.insns.set(n, rt(name, desc));
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
                x.insns.set(n, rt("instantNow", "()Ljava/time/Instant;"));
                return true;
            case "java/time/Clock.systemUTC()Ljava/time/Clock;":
                x.insns.set(n, rt("systemUTC", "()Ljava/time/Clock;"));
                return true;
            case "java/time/Clock.systemDefaultZone()Ljava/time/Clock;":
                x.insns.set(n, rt("systemDefaultZone", "()Ljava/time/Clock;"));
                return true;
            default:
                break;
        }
        if (!n.name.equals("now") || !DATE_TIMES.contains(n.owner)) {
            return false;
        }
        String result = "L" + n.owner + ";";
        if (n.desc.equals("()" + result)) {
            x.insns.insertBefore(n, rt("systemDefaultZone", "()Ljava/time/Clock;"));
        } else if (n.desc.equals("(Ljava/time/ZoneId;)" + result)) {
            x.insns.insertBefore(n, rt("clockIn", "(Ljava/time/ZoneId;)Ljava/time/Clock;"));
        } else {
            return false;
        }
        n.desc = "(Ljava/time/Clock;)" + result;
        return true;
    }

    boolean isThread(String owner) {
        if (owner.equals("java/lang/Thread")) {
            return true;
        }
        if (owner.startsWith("java/") || owner.startsWith("[")) {
            return false;
        }
        return ClassInfo.isSubclass(owner, "java/lang/Thread", x.c.loader);
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
        if (!n.owner.equals("java/lang/Thread") && ClassInfo.declaredBelow(n.owner, "java/lang/Thread", key, x.c.loader)) {
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
}
