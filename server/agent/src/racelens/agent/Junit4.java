package racelens.agent;

import java.lang.annotation.Annotation;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.text.MessageFormat;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * What racelens does of JUnit 4 beyond a plain {@code @Test}, by reflection (racelens does not
 * link against JUnit): the runners it honours, {@code @RunWith(Parameterized.class)}'s parameter
 * sets, and the rules.
 *
 * <ul>
 *   <li><b>Runners.</b> {@code JUnit4}, {@code BlockJUnit4ClassRunner} and {@code Parameterized}
 *       (its default factory) run as JUnit runs them; any other runner ({@code SpringRunner},
 *       {@code MockitoJUnitRunner}, {@code Theories}, ...) decides itself how a test runs, and is
 *       refused by name before any schedule.
 *   <li><b>Rules.</b> {@code @Rule} fields and methods ({@code TestRule}s and {@code MethodRule}s) are
 *       applied to every execution as {@code BlockJUnit4ClassRunner} applies them, ordered as its
 *       {@code RuleContainer} orders them (a higher {@code order} is inner; at equal order a
 *       {@code MethodRule} is inner), around {@code @Before}, the test and {@code @After};
 *       {@code @ClassRule}s are applied around the whole JVM's run, outside {@code @BeforeClass}.
 *       A rule that runs the test on a thread of its own cannot be honoured (the test would run
 *       on a thread racelens does not control): JUnit's {@code Timeout} (also inside a
 *       {@code RuleChain} or {@code DisableOnDebug}) is refused by name. Any other library rule
 *       that does so ends its executions as {@code uncontrolled}, never as a pass.
 * </ul>
 */
final class Junit4 {
    private Junit4() {}

    private static final Set<String> RUNNERS = new LinkedHashSet<>(Arrays.asList(
            "org.junit.runners.JUnit4", "org.junit.runners.BlockJUnit4ClassRunner", "org.junit.runners.Parameterized"));

    /** The runner of {@code @RunWith} ({@code @Inherited}), or null without one. */
    static Class<?> runner(Class<?> cls) {
        Annotation a = TestSpec.annotation(cls.getAnnotations(), "org.junit.runner.RunWith");
        try {
            return a == null ? null : (Class<?>) TestSpec.attribute(a, "value");
        } catch (ReflectiveOperationException e) {
            return null;
        }
    }

    /** Refuses a runner racelens does not honour, by name. */
    static void refuseRunner(Class<?> cls) throws TestSpec.SetupException {
        Class<?> runner = runner(cls);
        if (runner != null && !RUNNERS.contains(runner.getName())) {
            throw new TestSpec.SetupException("not explored: " + cls.getName() + " runs with @RunWith(" + runner.getSimpleName() + ".class), a runner racelens cannot honour: the runner decides how the test runs,"
                    + " and racelens runs the test's lifecycle itself (it honours the default runner and Parameterized)");
        }
        if (isParameterized(cls) && TestSpec.annotation(cls.getAnnotations(), "org.junit.runners.Parameterized$UseParametersRunnerFactory") != null) {
            throw new TestSpec.SetupException("not explored: " + cls.getName() + " has @UseParametersRunnerFactory: its runners decide how each test runs, which racelens cannot honour");
        }
    }

    static boolean isParameterized(Class<?> cls) {
        Class<?> r = runner(cls);
        return r != null && r.getName().equals("org.junit.runners.Parameterized");
    }

    // ---- Parameterized ----

    /** How a {@code Parameterized} class gets its parameters: its {@code @Parameters} method, then a constructor or fields. */
    static final class Params {
        final Method parameters;
        /** {@code @Parameter(i)} fields; empty: the constructor takes them. */
        final List<Field> fields = new ArrayList<>();
        final List<Integer> fieldIndices = new ArrayList<>();
        final List<Method> beforeParam = new ArrayList<>();
        final List<Method> afterParam = new ArrayList<>();

        Params(Method parameters) {
            this.parameters = parameters;
        }

        /** Every parameter set, from a fresh call of the {@code @Parameters} method. */
        List<Object[]> all() throws Throwable {
            Object result = TestSpec.invoke(parameters, null);
            List<Object[]> out = new ArrayList<>();
            Iterable<?> items = result instanceof Object[] ? Arrays.asList((Object[]) result) : (Iterable<?>) result;
            for (Object item : items) {
                out.add(item instanceof Object[] ? (Object[]) item : new Object[] {item});
            }
            return out;
        }

        /** The test instance for one parameter set. */
        Object instance(Class<?> cls, Object[] args) throws Throwable {
            if (fields.isEmpty()) {
                Constructor<?> c = cls.getConstructors()[0];
                return TestSpec.construct(c, args);
            }
            Object target = TestSpec.construct(cls.getConstructor());
            for (int i = 0; i < fields.size(); i++) {
                fields.get(i).set(target, args[fieldIndices.get(i)]);
            }
            return target;
        }

        void runParamMethods(List<Method> methods, Object[] args) throws Throwable {
            for (Method m : methods) {
                TestSpec.invoke(m, null, m.getParameterCount() == 0 ? new Object[0] : args);
            }
        }
    }

    /** The parameter sets of a {@code Parameterized} class as invocations ({@code test[0]}, ...), and how to use them. */
    static Params params(Class<?> cls) throws TestSpec.SetupException {
        Method parameters = null;
        for (Method m : cls.getMethods()) {
            if (TestSpec.annotated(m, "org.junit.runners.Parameterized$Parameters")) {
                parameters = m;
            }
        }
        if (parameters == null || !Modifier.isStatic(parameters.getModifiers())) {
            throw new TestSpec.SetupException(cls.getName() + " runs with Parameterized but has no public static @Parameters method (JUnit fails it)");
        }
        parameters.setAccessible(true);
        Params p = new Params(parameters);
        for (Class<?> c = cls; c != null && c != Object.class; c = c.getSuperclass()) {
            for (Field f : c.getDeclaredFields()) {
                Annotation a = TestSpec.annotation(f.getAnnotations(), "org.junit.runners.Parameterized$Parameter");
                if (a != null) {
                    try {
                        p.fieldIndices.add((Integer) TestSpec.attribute(a, "value"));
                    } catch (ReflectiveOperationException e) {
                        throw new TestSpec.SetupException("cannot read @Parameter of " + f.getName() + ": " + e);
                    }
                    f.setAccessible(true);
                    p.fields.add(f);
                }
            }
        }
        for (Method m : cls.getMethods()) {
            if (TestSpec.annotated(m, "org.junit.runners.Parameterized$BeforeParam")) {
                p.beforeParam.add(m);
            }
            if (TestSpec.annotated(m, "org.junit.runners.Parameterized$AfterParam")) {
                p.afterParam.add(m);
            }
        }
        if (p.fields.isEmpty() && cls.getConstructors().length != 1) {
            throw new TestSpec.SetupException(cls.getName() + " must have exactly one public constructor for its parameters (JUnit fails it)");
        }
        return p;
    }

    /** The invocations of {@code test} in a {@code Parameterized} class: one per parameter set, from 0 as JUnit 4 numbers them. */
    static List<Invocation> invocations(Class<?> cls, Params p) throws TestSpec.SetupException {
        List<Object[]> sets;
        try {
            sets = p.all();
        } catch (Throwable e) {
            throw new TestSpec.SetupException(cls.getName() + "." + p.parameters.getName() + "() failed: " + e);
        }
        String pattern = "{index}";
        try {
            pattern = (String) TestSpec.attribute(TestSpec.annotation(p.parameters.getAnnotations(), "org.junit.runners.Parameterized$Parameters"), "name");
        } catch (ReflectiveOperationException | RuntimeException e) {
            // JUnit's default name
        }
        List<Invocation> out = new ArrayList<>();
        for (int i = 0; i < sets.size(); i++) {
            String name;
            try {
                name = MessageFormat.format(pattern.replace("{index}", Integer.toString(i)), sets.get(i));
            } catch (IllegalArgumentException e) {
                name = Integer.toString(i);
            }
            out.add(new Invocation(i, name, p::all, i, 0, 0));
        }
        if (out.isEmpty()) {
            throw new TestSpec.SetupException(cls.getName() + " has no parameters: JUnit runs none of its tests");
        }
        return out;
    }

    // ---- rules ----

    /** One rule of a test instance: a {@code TestRule}, or a {@code MethodRule} that is none. */
    private static final class Entry {
        final Object rule;
        final boolean methodRule;
        final int order;

        Entry(Object rule, boolean methodRule, int order) {
            this.rule = rule;
            this.methodRule = methodRule;
            this.order = order;
        }
    }

    /** The {@code @Rule} (or {@code @ClassRule}) fields and methods of a class, read from an instance per execution. */
    static final class Rules {
        private final Class<?> cls;
        private final List<Field> fields = new ArrayList<>();
        private final List<Method> methods = new ArrayList<>();
        private final boolean classRules;
        private Class<?> testRule;
        private Class<?> methodRule;
        private Class<?> statement;
        private Constructor<?> callStatement;
        private Method describe;

        private Rules(Class<?> cls, boolean classRules) {
            this.cls = cls;
            this.classRules = classRules;
        }

        boolean isEmpty() {
            return fields.isEmpty() && methods.isEmpty();
        }

        /**
         * {@code test} run inside the rules of {@code target} (null for class rules); the rules
         * wrap a statement that calls {@code body}. Returns what the outermost statement threw.
         */
        Throwable run(Object target, String name, Method test, Callable<Object> body) {
            try {
                Object s = callStatement.newInstance(body);
                Object description = classRules ? describe.invoke(null, cls) : describe.invoke(null, cls, name, test.getAnnotations());
                for (Entry e : entries(target)) {
                    if (e.methodRule) {
                        Class<?> fm = Class.forName("org.junit.runners.model.FrameworkMethod", false, cls.getClassLoader());
                        Object frameworkMethod = fm.getConstructor(Method.class).newInstance(test);
                        s = methodRule.getMethod("apply", statement, fm, Object.class).invoke(e.rule, s, frameworkMethod, target);
                    } else {
                        s = testRule.getMethod("apply", statement, description.getClass()).invoke(e.rule, s, description);
                    }
                }
                TestSpec.invoke(statement.getMethod("evaluate"), s);
                return null;
            } catch (java.lang.reflect.InvocationTargetException e) {
                return e.getCause();
            } catch (Throwable e) {
                return e;
            }
        }

        /** The rules of {@code target} in the order they are applied (innermost first). */
        private List<Entry> entries(Object target) throws Throwable {
            List<Entry> out = new ArrayList<>();
            for (Field f : fields) {
                add(out, f.get(target), orderOf(f.getAnnotations()));
            }
            for (Method m : methods) {
                add(out, TestSpec.invoke(m, target), orderOf(m.getAnnotations()));
            }
            // RuleContainer: a higher order is inner; at equal order MethodRules are inner.
            out.sort((a, b) -> a.order != b.order ? Integer.compare(b.order, a.order) : Boolean.compare(!a.methodRule, !b.methodRule));
            return out;
        }

        private void add(List<Entry> out, Object rule, int order) {
            if (testRule.isInstance(rule)) {
                out.add(new Entry(rule, false, order));
            } else if (methodRule != null && methodRule.isInstance(rule)) {
                out.add(new Entry(rule, true, order));
            }
        }

        private int orderOf(Annotation[] annotations) {
            Annotation a = TestSpec.annotation(annotations, classRules ? "org.junit.ClassRule" : "org.junit.Rule");
            try {
                return a == null ? -1 : (Integer) TestSpec.attribute(a, "order");
            } catch (ReflectiveOperationException | RuntimeException e) {
                return -1; // JUnit before 4.13: no order
            }
        }

        /** Refuses the rules that would run the test on a thread of their own, by name. */
        void refuseThreadRules(Object target) throws TestSpec.SetupException {
            List<Entry> entries;
            try {
                entries = entries(target);
            } catch (Throwable e) {
                throw new TestSpec.SetupException("the rules of " + cls.getName() + " could not be read: " + e);
            }
            for (Entry e : entries) {
                String why = startsThreads(e.rule, 0);
                if (why != null) {
                    throw new TestSpec.SetupException("not explored: racelens cannot honour the " + (classRules ? "@ClassRule " : "@Rule ") + why + " of " + cls.getName()
                            + ": it runs the test on a thread of its own, which racelens does not control (a time limit racelens can honour: @Test(timeout = ...), counted in logical time)");
                }
            }
        }

        /** A rule that runs the statement on a thread of its own: JUnit's {@code Timeout}, also inside {@code RuleChain} and {@code DisableOnDebug}. */
        private String startsThreads(Object rule, int depth) {
            if (rule == null || depth > 16) {
                return null;
            }
            for (Class<?> c = rule.getClass(); c != null; c = c.getSuperclass()) {
                if (c.getName().equals("org.junit.rules.Timeout")) {
                    return rule.getClass().getSimpleName();
                }
            }
            String[] inner = rule.getClass().getName().equals("org.junit.rules.DisableOnDebug") ? new String[] {"rule"}
                    : rule.getClass().getName().equals("org.junit.rules.RuleChain") ? new String[] {"rulesStartingWithInnerMost"} : new String[0];
            for (String field : inner) {
                try {
                    Field f = rule.getClass().getDeclaredField(field);
                    f.setAccessible(true);
                    Object v = f.get(rule);
                    for (Object r : v instanceof List ? (List<?>) v : Arrays.asList(v)) {
                        String why = startsThreads(r, depth + 1);
                        if (why != null) {
                            return why + " (in " + rule.getClass().getSimpleName() + ")";
                        }
                    }
                } catch (ReflectiveOperationException | RuntimeException e) {
                    // another JUnit's layout: what it holds cannot be seen
                }
            }
            return null;
        }
    }

    /** The {@code @Rule}s ({@code classRules}: the {@code @ClassRule}s) of {@code cls}, or null when it has none. */
    static Rules rules(Class<?> cls, boolean classRules) throws TestSpec.SetupException {
        String annotation = classRules ? "org.junit.ClassRule" : "org.junit.Rule";
        Rules r = new Rules(cls, classRules);
        for (Class<?> c = cls; c != null && c != Object.class; c = c.getSuperclass()) {
            Field[] fs = c.getDeclaredFields();
            Arrays.sort(fs, (a, b) -> a.getName().compareTo(b.getName()));
            for (Field f : fs) {
                if (TestSpec.annotation(f.getAnnotations(), annotation) != null && Modifier.isStatic(f.getModifiers()) == classRules) {
                    f.setAccessible(true);
                    r.fields.add(f);
                }
            }
        }
        for (Method m : cls.getMethods()) {
            if (TestSpec.annotated(m, annotation) && Modifier.isStatic(m.getModifiers()) == classRules && m.getParameterCount() == 0) {
                m.setAccessible(true);
                r.methods.add(m);
            }
        }
        if (r.isEmpty()) {
            return null;
        }
        ClassLoader loader = cls.getClassLoader();
        try {
            r.testRule = Class.forName("org.junit.rules.TestRule", false, loader);
            r.statement = Class.forName("org.junit.runners.model.Statement", false, loader);
            Class<?> description = Class.forName("org.junit.runner.Description", false, loader);
            r.describe = classRules ? description.getMethod("createSuiteDescription", Class.class)
                    : description.getMethod("createTestDescription", Class.class, String.class, Annotation[].class);
            try {
                r.methodRule = Class.forName("org.junit.rules.MethodRule", false, loader);
            } catch (ClassNotFoundException e) {
                r.methodRule = null;
            }
            r.callStatement = callStatement(loader).getConstructor(Callable.class);
        } catch (ReflectiveOperationException | LinkageError e) {
            throw new TestSpec.SetupException(cls.getName() + " has rules, but not the JUnit 4 API racelens knows (" + e + ")");
        }
        return r;
    }

    private static Class<?> generated;

    /**
     * {@code racelens.generated.CallStatement extends org.junit.runners.model.Statement}, whose
     * {@code evaluate()} calls a {@code Callable}: a statement for the rules to wrap, made at
     * run time since racelens does not link against JUnit. Defined in a loader under the test's,
     * without a code source, so it is never instrumented.
     */
    private static synchronized Class<?> callStatement(ClassLoader parent) {
        if (generated != null) {
            return generated;
        }
        String name = "racelens/generated/CallStatement";
        String sup = "org/junit/runners/model/Statement";
        ClassWriter cw = new ClassWriter(ClassWriter.COMPUTE_FRAMES | ClassWriter.COMPUTE_MAXS);
        cw.visit(Opcodes.V1_8, Opcodes.ACC_PUBLIC | Opcodes.ACC_FINAL, name, null, sup, null);
        cw.visitField(Opcodes.ACC_PRIVATE | Opcodes.ACC_FINAL, "body", "Ljava/util/concurrent/Callable;", null, null).visitEnd();
        MethodVisitor init = cw.visitMethod(Opcodes.ACC_PUBLIC, "<init>", "(Ljava/util/concurrent/Callable;)V", null, null);
        init.visitCode();
        init.visitVarInsn(Opcodes.ALOAD, 0);
        init.visitMethodInsn(Opcodes.INVOKESPECIAL, sup, "<init>", "()V", false);
        init.visitVarInsn(Opcodes.ALOAD, 0);
        init.visitVarInsn(Opcodes.ALOAD, 1);
        init.visitFieldInsn(Opcodes.PUTFIELD, name, "body", "Ljava/util/concurrent/Callable;");
        init.visitInsn(Opcodes.RETURN);
        init.visitMaxs(0, 0);
        init.visitEnd();
        MethodVisitor eval = cw.visitMethod(Opcodes.ACC_PUBLIC, "evaluate", "()V", null, new String[] {"java/lang/Throwable"});
        eval.visitCode();
        eval.visitVarInsn(Opcodes.ALOAD, 0);
        eval.visitFieldInsn(Opcodes.GETFIELD, name, "body", "Ljava/util/concurrent/Callable;");
        eval.visitMethodInsn(Opcodes.INVOKEINTERFACE, "java/util/concurrent/Callable", "call", "()Ljava/lang/Object;", true);
        eval.visitInsn(Opcodes.POP);
        eval.visitInsn(Opcodes.RETURN);
        eval.visitMaxs(0, 0);
        eval.visitEnd();
        cw.visitEnd();
        byte[] bytes = cw.toByteArray();
        ClassLoader loader = new ClassLoader(parent) {
            @Override
            protected Class<?> findClass(String n) throws ClassNotFoundException {
                if (n.equals(name.replace('/', '.'))) {
                    return defineClass(n, bytes, 0, bytes.length);
                }
                throw new ClassNotFoundException(n);
            }
        };
        try {
            generated = loader.loadClass(name.replace('/', '.'));
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException(e);
        }
        return generated;
    }

    /** Throws {@code t} from a {@code Callable} whatever its kind. */
    @SuppressWarnings("unchecked")
    static <T extends Throwable> RuntimeException sneaky(Throwable t) throws T {
        throw (T) t;
    }
}
