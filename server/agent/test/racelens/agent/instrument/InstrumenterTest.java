package racelens.agent.instrument;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.LdcInsnNode;
import org.objectweb.asm.tree.MethodInsnNode;
import org.objectweb.asm.tree.MethodNode;
import org.objectweb.asm.tree.TypeInsnNode;
import racelens.rt.Controlled;
import racelens.rt.Sites;

/**
 * The instrumenter ({@link Instrumenter#instrument}) without the agent attached: the bytecode it
 * makes of {@link Shared} calls the {@code racelens.rt.Rt} hooks PROTOCOL.md lists (points with
 * their sites, model monitors instead of {@code synchronized}, {@code wait}, {@code Thread.start}
 * and {@code join}, the logical clock, a model semaphore instead of the JDK's), and the class it
 * makes runs: loaded by a loader of its own and driven by {@link Controlled}, the unsynchronized
 * increment loses an update in some schedule and the synchronized one in none.
 */
class InstrumenterTest {
    private static byte[] original() throws IOException {
        try (InputStream in = Shared.class.getResourceAsStream("Shared.class")) {
            return in.readAllBytes();
        }
    }

    private static byte[] instrumented() throws IOException {
        return Instrumenter.instrument(original(), InstrumenterTest.class.getClassLoader(), false);
    }

    private static MethodNode method(ClassNode c, String name) {
        return c.methods.stream().filter(m -> m.name.equals(name)).findFirst().orElseThrow();
    }

    /** The {@code Rt} methods a method calls, in order. */
    private static List<String> hooks(MethodNode m) {
        List<String> out = new ArrayList<>();
        for (AbstractInsnNode n : m.instructions) {
            if (n instanceof MethodInsnNode && ((MethodInsnNode) n).owner.equals("racelens/rt/Rt")) {
                out.add(((MethodInsnNode) n).name);
            }
        }
        return out;
    }

    /** The sites (as {@link Sites#describe} says) pushed right before calls of {@code Rt.hook}. */
    private static List<String> sites(MethodNode m, String hook) {
        List<String> out = new ArrayList<>();
        for (AbstractInsnNode n : m.instructions) {
            if (n instanceof MethodInsnNode && ((MethodInsnNode) n).name.equals(hook) && n.getPrevious() instanceof LdcInsnNode) {
                out.add(Sites.describe((Integer) ((LdcInsnNode) n.getPrevious()).cst));
            }
        }
        return out;
    }

    private static ClassNode tree(byte[] bytes) {
        ClassNode c = new ClassNode();
        new ClassReader(bytes).accept(c, 0);
        return c;
    }

    @Test
    void fieldAccessesBecomePointsWithTheirSites() throws IOException {
        MethodNode m = method(tree(instrumented()), "racyIncrement");
        assertTrue(hooks(m).contains("point"), hooks(m).toString());
        Set<String> sites = new TreeSet<>();
        for (String s : sites(m, "point")) {
            sites.add(s.replaceFirst(":\\d+ ", ":<line> ")); // the source line is Shared.java's
        }
        String at = "racelens.agent.instrument.Shared.racyIncrement:<line> ";
        assertEquals(Set.of(at + "READ racelens.agent.instrument.Shared.count", at + "WRITE racelens.agent.instrument.Shared.count"), sites);
    }

    @Test
    void synchronizedMethodsUseModelMonitors() throws IOException {
        MethodNode m = method(tree(instrumented()), "lockedIncrement");
        assertEquals(0, m.access & Opcodes.ACC_SYNCHRONIZED, "the flag is removed");
        List<String> h = hooks(m);
        assertTrue(h.contains("monitorEnter") && h.contains("monitorExit"), h.toString());
        assertTrue(h.indexOf("monitorEnter") < h.indexOf("point"), "the body runs inside the monitor: " + h);
        MethodNode original = method(tree(original()), "lockedIncrement");
        assertTrue((original.access & Opcodes.ACC_SYNCHRONIZED) != 0);
        assertTrue(hooks(original).isEmpty());
    }

    @Test
    void monitorsWaitThreadsAndTimeAreReplaced() throws IOException {
        ClassNode c = tree(instrumented());
        List<String> waitFor = hooks(method(c, "waitForIt"));
        assertTrue(waitFor.containsAll(List.of("monitorEnter", "wait", "monitorExit")), waitFor.toString());
        List<String> threads = hooks(method(c, "startAndJoin"));
        assertTrue(threads.containsAll(List.of("start", "join")), threads.toString());
        assertEquals(List.of("nanoTime"), hooks(method(c, "now")).stream().filter(h -> !h.equals("born")).toList());
        for (AbstractInsnNode n : method(c, "waitForIt").instructions) {
            if (n instanceof MethodInsnNode && ((MethodInsnNode) n).owner.equals("java/lang/Object")) {
                assertFalse(((MethodInsnNode) n).name.equals("wait"), "no JDK wait left");
            }
        }
    }

    @Test
    void allocationsOfModelledClassesBecomeModels() throws IOException {
        MethodNode m = method(tree(instrumented()), "newSemaphore");
        List<String> news = new ArrayList<>();
        List<String> inits = new ArrayList<>();
        for (AbstractInsnNode n : m.instructions) {
            if (n.getOpcode() == Opcodes.NEW) {
                news.add(((TypeInsnNode) n).desc);
            } else if (n instanceof MethodInsnNode && ((MethodInsnNode) n).name.equals("<init>")) {
                inits.add(((MethodInsnNode) n).owner);
            }
        }
        assertEquals(List.of("racelens/rt/model/ModelSemaphore"), news);
        assertEquals(List.of("racelens/rt/model/ModelSemaphore"), inits);
    }

    /** Loads the instrumented {@link Shared} on its own (the other classes come from the tests' loader). */
    private static final class Instrumented extends ClassLoader {
        private final byte[] bytes;

        Instrumented(byte[] bytes) {
            super(InstrumenterTest.class.getClassLoader());
            this.bytes = bytes;
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (!name.equals(Shared.class.getName())) {
                return super.loadClass(name, resolve);
            }
            synchronized (getClassLoadingLock(name)) {
                Class<?> c = findLoadedClass(name);
                return c != null ? c : defineClass(name, bytes, 0, bytes.length);
            }
        }
    }

    /** The counts two controlled threads leave, each calling {@code method} once, over every schedule. */
    private static Set<Object> counts(String method) throws Exception {
        Class<?> c = new Instrumented(instrumented()).loadClass(Shared.class.getName());
        assertEquals(c.getClassLoader().getClass(), Instrumented.class);
        Method inc = c.getMethod(method);
        Controlled.Explored e = Controlled.explore(500, out -> {
            Object shared = c.getConstructor().newInstance();
            Thread t = Controlled.start("T1", () -> inc.invoke(shared));
            inc.invoke(shared);
            Controlled.join(t);
            out.accept(c.getField("count").get(shared));
        });
        assertTrue(e.all("pass"), e.results.toString());
        return new TreeSet<>(e.values);
    }

    @Test
    void theInstrumentedClassRunsUnderTheScheduler() throws Exception {
        assertEquals(Set.of(1, 2), counts("racyIncrement"), "a lost update in some schedule");
        assertEquals(Set.of(2), counts("lockedIncrement"), "never with the monitor");
    }
}
