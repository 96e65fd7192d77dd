package racelens.agent;

import java.io.IOException;
import java.io.InputStream;
import java.lang.annotation.Annotation;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;
import racelens.rt.Abort;
import racelens.rt.Rt;

/**
 * One test to run again and again, found through reflection (racelens does not link against
 * JUnit): a JUnit 3 {@code TestCase} method (of the class, or found in its {@code suite()}), a
 * JUnit 4 or JUnit 5 (Jupiter) {@code @Test} method, or a {@code static main(String[])}.
 *
 * <p>Tests as JUnit runs them: never of an abstract class (name the concrete subclass that inherits
 * the test), never a {@code @Disabled} or {@code @Ignore}d one; JUnit 5 {@code @Nested} classes with
 * their outer instances and the outer classes' {@code @BeforeEach}/{@code @AfterEach}; the
 * invocations of {@code @ParameterizedTest}, {@code @RepeatedTest} ({@link Jupiter}) and JUnit 4's
 * {@code Parameterized} ({@link Junit4}), one per execution as the RUN request names it
 * ({@code junit:pkg.T#m[2]} names one); JUnit 4 rules ({@link Junit4}). Runners and extensions
 * racelens cannot honour are refused by name when the test is prepared, before any schedule.
 *
 * <p>A JUnit 4 {@code @Test(timeout)} or JUnit 5 {@code @Timeout} is a limit in logical time:
 * when the test method returns later than that on racelens's clock, the execution fails as JUnit
 * fails it. Never a race with the host's clock: the same schedule gives the same verdict.
 */
final class TestSpec {
    static final class SetupException extends Exception {
        private static final long serialVersionUID = 1L;

        SetupException(String msg) {
            super(msg);
        }
    }

    private static final String JUNIT4_TEST = "org.junit.Test";
    private static final String JUPITER_TEST = "org.junit.jupiter.api.Test";

    final String kind;
    final Class<?> cls;
    /** The test method; null for a JUnit 3 test of a suite() (its TestCase may override runTest()). */
    final Method test;
    /** The method name as the spec gave it. */
    final String name;
    final List<Method> beforeAll = new ArrayList<>();
    final List<Method> afterAll = new ArrayList<>();
    /** {@code @Before}/{@code @BeforeEach} methods, outer classes' first, with the level of the instance they run on. */
    final List<Bound> before = new ArrayList<>();
    /** {@code @After}/{@code @AfterEach} methods, inner classes' first. */
    final List<Bound> after = new ArrayList<>();
    Class<?> expected;
    Constructor<?> ctor;
    /**
     * The classes whose instances a test runs on, outermost first: the class itself, or for a
     * JUnit 5 {@code @Nested} class, its enclosing classes and then it.
     */
    final List<Class<?>> levels = new ArrayList<>();
    /** The invocations of a test JUnit runs more than once; null for one that runs once. */
    List<Invocation> invocations;
    /** The one invocation the spec named ({@code m[2]}), or null. */
    Integer only;
    /** JUnit 4 {@code Parameterized}: where the parameters come from; null otherwise. */
    Junit4.Params params;
    /** JUnit 4 {@code @Rule}s and {@code @ClassRule}s; null without any. */
    Junit4.Rules rules;
    Junit4.Rules classRules;

    /** A lifecycle method and the level ({@link #levels}) of the instance it runs on. */
    static final class Bound {
        final Method method;
        final int level;

        Bound(Method method, int level) {
            this.method = method;
            this.level = level;
        }
    }
    /** JUnit 3: where each execution's fresh TestCase comes from; null for other kinds. */
    Junit3 junit3;
    /** The test method's time limit; null without one. */
    Timeout timeout;

    private TestSpec(String kind, Class<?> cls, Method test, String name) {
        this.kind = kind;
        this.cls = cls;
        this.test = test;
        this.name = name;
    }

    String describe() {
        return kind + " " + cls.getName() + "#" + name;
    }

    static TestSpec prepare(String spec) throws SetupException {
        boolean main;
        String rest;
        if (spec.startsWith("junit:")) {
            main = false;
            rest = spec.substring(6);
        } else if (spec.startsWith("main:")) {
            main = true;
            rest = spec.substring(5);
        } else {
            throw new SetupException("test spec must be junit:<class>#<method> or main:<class>, got " + spec);
        }
        String className = rest;
        String methodName = "main";
        Integer only = null;
        if (!main) {
            int hash = rest.indexOf('#');
            if (hash < 0) {
                throw new SetupException("test spec must be junit:<class>#<method>, got " + spec);
            }
            className = rest.substring(0, hash);
            methodName = rest.substring(hash + 1);
            int bracket = methodName.indexOf('[');
            if (bracket > 0 && methodName.endsWith("]")) {
                try {
                    only = Integer.parseInt(methodName.substring(bracket + 1, methodName.length() - 1));
                } catch (NumberFormatException e) {
                    throw new SetupException("an invocation is named by its number, as in " + methodName.substring(0, bracket) + "[2]; got " + methodName);
                }
                methodName = methodName.substring(0, bracket);
            }
        }
        Class<?> cls;
        try {
            cls = Class.forName(className, false, ClassLoader.getSystemClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            throw new SetupException("class not found: " + className + " (" + e + ")");
        }
        if (main) {
            return mainOf(cls);
        }
        TestSpec t = testOf(cls, methodName);
        t.chooseOnly(only);
        return t;
    }

    /** Keeps the one invocation {@code only} names (null: all). */
    private void chooseOnly(Integer only) throws SetupException {
        if (only == null) {
            return;
        }
        if (invocations == null) {
            throw new SetupException(describe() + " runs once: it has no invocation [" + only + "] (parameterized and repeated tests have invocations)");
        }
        for (Invocation inv : invocations) {
            if (inv.index == only) {
                this.only = only;
                invocations = java.util.Collections.singletonList(inv);
                return;
            }
        }
        throw new SetupException(describe() + " has no invocation [" + only + "]: its invocations are [" + invocations.get(0).index + "] to ["
                + invocations.get(invocations.size() - 1).index + "]");
    }

    private static TestSpec mainOf(Class<?> cls) throws SetupException {
        try {
            Method m = cls.getMethod("main", String[].class);
            if (!Modifier.isStatic(m.getModifiers())) {
                throw new SetupException(cls.getName() + ".main(String[]) is not static");
            }
            m.setAccessible(true);
            return new TestSpec("main", cls, m, "main");
        } catch (NoSuchMethodException e) {
            throw new SetupException("no static main(String[]) in " + cls.getName());
        }
    }

    /**
     * Which framework runs {@code cls#name}, as JUnit would decide: a Jupiter {@code @Test}; in a
     * {@code TestCase} subclass, its JUnit 3 test method (JUnit 4's runner runs such a class the
     * JUnit 3 way, {@code @Test} or not); a JUnit 4 {@code @Test}; else a test of the class's
     * {@code suite()}.
     */
    private static TestSpec testOf(Class<?> cls, String name) throws SetupException {
        Method jupiter = jupiterTest(cls, name);
        if (jupiter != null) {
            return annotated("junit5", cls, jupiter);
        }
        Class<?> testCase = Junit3.testCaseClass(cls);
        Method junit4 = annotatedTest(cls, name, JUNIT4_TEST);
        if (testCase != null) {
            Method m = Junit3.testMethod(cls, name);
            if (m != null) {
                TestSpec t = new TestSpec("junit3", cls, m, name);
                t.junit3 = Junit3.direct(cls, testCase, name);
                return t;
            }
        } else if (junit4 != null) {
            return annotated("junit4", cls, junit4);
        }
        Method suite = Junit3.suiteMethod(cls);
        if (suite != null) {
            Junit3 fromSuite = Junit3.inSuite(cls, suite, name);
            return fromSuite.specOf(cls, name);
        }
        throw new SetupException(noTest(cls, name, testCase, junit4));
    }

    private static String noTest(Class<?> cls, String name, Class<?> testCase, Method junit4) {
        if (testCase == null) {
            return "no @Test method " + name + "() without parameters in " + cls.getName();
        }
        if (junit4 != null) {
            return cls.getName() + " extends junit.framework.TestCase, so JUnit runs it the JUnit 3 way: " + name
                    + "() is annotated @Test but is not a public void test*() method";
        }
        String why = Junit3.whyNotATest(cls, name);
        String tests = String.join(", ", Junit3.testNames(cls));
        return "no JUnit 3 test method " + name + "() in " + cls.getName() + (why == null ? "" : ": " + why)
                + " (JUnit 3 runs public void test*() methods without parameters; test methods: " + (tests.isEmpty() ? "none" : tests) + ")";
    }

    /**
     * The Jupiter test method {@code name} of {@code cls}: the nearest method of that name up the
     * class chain (an override hides what it overrides), if it carries {@code @Test},
     * {@code @ParameterizedTest} or {@code @RepeatedTest}.
     */
    private static Method jupiterTest(Class<?> cls, String name) {
        for (Class<?> c = cls; c != null && c != Object.class; c = c.getSuperclass()) {
            for (Method m : c.getDeclaredMethods()) {
                if (m.getName().equals(name) && !m.isSynthetic() && !m.isBridge()) {
                    boolean test = annotated(m, JUPITER_TEST) || annotated(m, "org.junit.jupiter.params.ParameterizedTest") || annotated(m, Jupiter.API + "RepeatedTest");
                    return test ? m : null;
                }
            }
        }
        return null;
    }

    /** The first no-argument method {@code name} up the class chain that carries {@code annotation}. */
    private static Method annotatedTest(Class<?> cls, String name, String annotation) {
        for (Class<?> c = cls; c != null && c != Object.class; c = c.getSuperclass()) {
            for (Method m : c.getDeclaredMethods()) {
                if (m.getName().equals(name) && m.getParameterCount() == 0 && annotated(m, annotation)) {
                    return m;
                }
            }
        }
        return null;
    }

    /** A JUnit 4 or 5 test with its lifecycle methods, expected exception and time limit. */
    private static TestSpec annotated(String kind, Class<?> cls, Method test) throws SetupException {
        TestSpec t = new TestSpec(kind, cls, test, test.getName());
        boolean j4 = kind.equals("junit4");
        if (Modifier.isAbstract(cls.getModifiers())) {
            throw new SetupException("not explored: " + cls.getName() + " is abstract: JUnit does not run it; name a concrete subclass that inherits " + test.getName() + "(), as in SubclassName#" + test.getName());
        }
        String skip = j4 ? "org.junit.Ignore" : Jupiter.API + "Disabled";
        String skipName = j4 ? "@Ignore" : "@Disabled";
        if (annotated(test, skip)) {
            throw new SetupException("not explored: " + t.describe() + " is " + skipName + ": JUnit skips it");
        }
        // the nested classes of a Jupiter test, outermost first
        for (Class<?> c = cls; c != null; c = !j4 && isNested(c) ? c.getEnclosingClass() : null) {
            t.levels.add(0, c);
            if (annotation(c.getDeclaredAnnotations(), skip) != null) {
                throw new SetupException("not explored: " + t.describe() + " is in " + c.getName() + ", which is " + skipName + ": JUnit skips it");
            }
        }
        if (j4) {
            Junit4.refuseRunner(cls);
        } else {
            Jupiter.refuseExtensions(t.levels, test);
        }
        String bEach = j4 ? "org.junit.Before" : "org.junit.jupiter.api.BeforeEach";
        String aEach = j4 ? "org.junit.After" : "org.junit.jupiter.api.AfterEach";
        String bAll = j4 ? "org.junit.BeforeClass" : "org.junit.jupiter.api.BeforeAll";
        String aAll = j4 ? "org.junit.AfterClass" : "org.junit.jupiter.api.AfterAll";
        for (int level = 0; level < t.levels.size(); level++) { // outer classes first
            List<Class<?>> chain = new ArrayList<>();
            for (Class<?> c = t.levels.get(level); c != null && c != Object.class; c = c.getSuperclass()) {
                chain.add(0, c);
            }
            for (Class<?> c : chain) { // superclass first
                for (Method m : sorted(c.getDeclaredMethods())) {
                    if (annotated(m, bEach)) {
                        t.before.add(new Bound(access(m, false, j4), level));
                    }
                    if (annotated(m, bAll)) {
                        t.beforeAll.add(access(m, true, j4));
                    }
                }
            }
        }
        for (int level = t.levels.size() - 1; level >= 0; level--) { // inner classes first
            List<Class<?>> chain = new ArrayList<>();
            for (Class<?> c = t.levels.get(level); c != null && c != Object.class; c = c.getSuperclass()) {
                chain.add(c);
            }
            for (Class<?> c : chain) { // subclass first
                for (Method m : sorted(c.getDeclaredMethods())) {
                    if (annotated(m, aEach)) {
                        t.after.add(new Bound(access(m, false, j4), level));
                    }
                    if (annotated(m, aAll)) {
                        t.afterAll.add(access(m, true, j4));
                    }
                }
            }
        }
        test.setAccessible(true);
        if (j4) {
            t.expected = expectedOf(test);
            if (Junit4.isParameterized(cls)) {
                t.params = Junit4.params(cls);
                t.invocations = Junit4.invocations(cls, t.params);
            }
            t.rules = Junit4.rules(cls, false);
            t.classRules = Junit4.rules(cls, true);
        } else {
            t.invocations = Jupiter.invocations(cls, test);
        }
        t.timeout = j4 ? Timeout.ofJunit4(test) : Timeout.ofJupiter(cls, test);
        if (t.params == null && !Modifier.isStatic(test.getModifiers())) {
            for (int level = 0; level < t.levels.size(); level++) {
                Class<?> c = t.levels.get(level);
                try {
                    Constructor<?> k = level == 0 ? c.getDeclaredConstructor() : c.getDeclaredConstructor(t.levels.get(level - 1));
                    k.setAccessible(true);
                    if (level == t.levels.size() - 1) {
                        t.ctor = k;
                    }
                } catch (NoSuchMethodException e) {
                    throw new SetupException(c.getName() + " has no constructor without parameters");
                }
            }
        }
        if (!j4) {
            t.checkParameters();
        }
        if (t.classRules != null) {
            t.classRules.refuseThreadRules(null);
        }
        if (t.rules != null) {
            t.refuseThreadRules();
        }
        return t;
    }

    /** A JUnit 5 {@code @Nested} class: an inner (not static) member class with the annotation. */
    private static boolean isNested(Class<?> c) {
        return c.isMemberClass() && !Modifier.isStatic(c.getModifiers()) && annotation(c.getDeclaredAnnotations(), Jupiter.API + "Nested") != null;
    }

    /** Every parameter of the test and its lifecycle methods has a value racelens can give (before any schedule). */
    private void checkParameters() throws SetupException {
        List<Invocation> all = invocations == null ? java.util.Collections.singletonList(null) : invocations;
        Invocation first = all.get(0);
        for (Bound b : before) {
            Jupiter.resolve(b.method, new Object[0], first, displayName(first), cls, test);
        }
        for (Bound b : after) {
            Jupiter.resolve(b.method, new Object[0], first, displayName(first), cls, test);
        }
        if (invocations == null) {
            Jupiter.resolve(test, new Object[0], null, displayName(null), cls, test);
        } else if (first.repetitions > 0) {
            Jupiter.resolve(test, new Object[0], first, displayName(first), cls, test);
        }
        // a parameterized test's arguments were converted when its invocations were made
    }

    /** The rules of a probe instance, made once outside any execution, that racelens must refuse. */
    private void refuseThreadRules() throws SetupException {
        Object probe;
        try {
            Object[] args = invocations == null ? new Object[0] : invocations.get(0).arguments();
            probe = params != null ? params.instance(cls, args) : construct(ctor);
        } catch (Throwable e) {
            throw new SetupException("an instance of " + cls.getName() + " for reading its rules could not be made: " + e);
        }
        rules.refuseThreadRules(probe);
    }

    /** What JUnit 5's {@code TestInfo.getDisplayName()} says, and the name JUnit 4's rules see. */
    String displayName(Invocation inv) {
        if (kind.equals("junit4")) {
            return inv == null ? name : name + "[" + inv.display + "]";
        }
        if (inv == null) {
            return name + "()";
        }
        return inv.repetitions > 0 ? inv.display : "[" + inv.index + "] " + inv.display;
    }

    private static Method[] sorted(Method[] ms) {
        java.util.Arrays.sort(ms, (a, b) -> a.getName().compareTo(b.getName()));
        return ms;
    }

    private static Method access(Method m, boolean mustBeStatic, boolean noParameters) throws SetupException {
        if (noParameters && m.getParameterCount() != 0) {
            throw new SetupException("lifecycle method " + m.getName() + " has parameters (not supported)");
        }
        if (mustBeStatic && !Modifier.isStatic(m.getModifiers())) {
            throw new SetupException(m.getName() + " must be static");
        }
        m.setAccessible(true);
        return m;
    }

    static boolean annotated(Method m, String annotation) {
        return annotation(m.getAnnotations(), annotation) != null;
    }

    static Annotation annotation(Annotation[] all, String name) {
        for (Annotation a : all) {
            if (a.annotationType().getName().equals(name)) {
                return a;
            }
        }
        return null;
    }

    /** An annotation's attribute, read reflectively (its type is JUnit's, not ours). */
    static Object attribute(Annotation a, String attribute) throws ReflectiveOperationException {
        return a.annotationType().getMethod(attribute).invoke(a);
    }

    private static Class<?> expectedOf(Method m) {
        Annotation a = annotation(m.getAnnotations(), JUNIT4_TEST);
        try {
            Object v = a == null ? null : attribute(a, "expected");
            if (v instanceof Class && !((Class<?>) v).getName().equals("org.junit.Test$None")) {
                return (Class<?>) v;
            }
        } catch (ReflectiveOperationException e) {
            return null;
        }
        return null;
    }

    void runAll(List<Method> ms) throws Throwable {
        for (Method m : ms) {
            invoke(m, null);
        }
    }

    static Object invoke(Method m, Object target, Object... args) throws Throwable {
        try {
            return m.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    static Object construct(Constructor<?> c, Object... args) throws Throwable {
        try {
            return c.newInstance(args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    static boolean isSkip(Throwable t) {
        String n = t.getClass().getName();
        return n.equals("org.junit.AssumptionViolatedException") || n.equals("org.junit.internal.AssumptionViolatedException")
                || n.equals("org.opentest4j.TestAbortedException");
    }

    /**
     * One execution as a fresh JVM runs the test alone: inside the class's {@code @ClassRule}s,
     * its {@code @BeforeClass} methods, the test ({@code inv}: its invocation), its
     * {@code @AfterClass} methods (the harness re-initialises the statics of application classes
     * for every execution, so what {@code @BeforeClass} set up must be set up again). Returns
     * the failure or null.
     */
    Throwable runOnceWithClassLifecycle(Invocation inv) {
        Throwable err;
        if (classRules == null) {
            err = classBody(inv);
        } else {
            err = classRules.run(null, null, null, () -> {
                Throwable e = classBody(inv);
                if (e != null) {
                    throw Junit4.<RuntimeException>sneaky(e);
                }
                return null;
            });
        }
        return err != null && isSkip(err) ? null : err;
    }

    /** {@code @BeforeClass}, the test, {@code @AfterClass}: the failure or null. */
    private Throwable classBody(Invocation inv) {
        Throwable err = null;
        try {
            runAll(beforeAll);
        } catch (Throwable e) {
            err = e;
        }
        if (err == null) {
            err = runOnce(inv);
        }
        if (!(err instanceof Abort)) {
            for (Method m : afterAll) {
                try {
                    invoke(m, null);
                } catch (Throwable e) {
                    if (err == null) {
                        err = e;
                    }
                    if (e instanceof Abort) {
                        break;
                    }
                }
            }
        }
        return err;
    }

    /** Runs without the agent ({@link Plain}): time limits count the wall clock, as JUnit's do. */
    static boolean plain;

    /** Nanoseconds on racelens's logical clock, or on the wall clock in a plain run. */
    private static long clock() {
        return plain ? System.nanoTime() : Rt.clock();
    }

    /** The invocation a RUN request names ({@code -1}: the one the spec named, else the first), or null for a test without. */
    Invocation invocation(int requested) {
        if (invocations == null) {
            return null;
        }
        for (Invocation inv : invocations) {
            if (requested < 0 || inv.index == requested) {
                return inv;
            }
        }
        throw new IllegalArgumentException(describe() + " has no invocation [" + requested + "]");
    }

    /** One execution of the test in the calling thread (thread 0); returns the failure or null. */
    Throwable runOnce(Invocation inv) {
        if (kind.equals("main")) {
            try {
                invoke(test, null, (Object) new String[0]);
                return null;
            } catch (Throwable e) {
                return e;
            }
        }
        if (junit3 != null) {
            return junit3.runOnce();
        }
        Object[] args = new Object[0];
        Throwable err = null;
        boolean paramSetUp = false;
        try {
            if (inv != null) {
                args = inv.arguments();
            }
            if (params != null) {
                paramSetUp = true;
                params.runParamMethods(params.beforeParam, args);
            }
            Object[] instances = instances(args);
            Object[] arguments = args;
            if (rules != null) {
                err = rules.run(instances[instances.length - 1], displayName(inv), test, () -> {
                    Throwable e = lifecycle(instances, arguments, inv);
                    if (e != null) {
                        throw Junit4.<RuntimeException>sneaky(e);
                    }
                    return null;
                });
            } else {
                err = lifecycle(instances, args, inv);
            }
        } catch (Throwable e) {
            err = e;
        }
        if (paramSetUp && !(err instanceof Abort)) {
            try {
                params.runParamMethods(params.afterParam, args);
            } catch (Throwable e) {
                err = err == null ? e : err;
            }
        }
        return err != null && isSkip(err) ? null : err;
    }

    /** The instances the test runs on, outermost first (the last one is the test's; null for a static test). */
    private Object[] instances(Object[] args) throws Throwable {
        Object[] out = new Object[levels.size()];
        if (params != null) {
            out[0] = params.instance(cls, args);
            return out;
        }
        if (ctor == null) {
            return out;
        }
        for (int level = 0; level < out.length; level++) {
            Class<?> c = levels.get(level);
            Constructor<?> k = level == 0 ? c.getDeclaredConstructor() : c.getDeclaredConstructor(levels.get(level - 1));
            k.setAccessible(true);
            out[level] = level == 0 ? construct(k) : construct(k, out[level - 1]);
        }
        return out;
    }

    /** {@code @Before}, the test method, {@code @After}: the failure, or null. */
    private Throwable lifecycle(Object[] instances, Object[] args, Invocation inv) {
        Throwable err;
        try {
            for (Bound b : before) {
                invoke(b.method, Modifier.isStatic(b.method.getModifiers()) ? null : instances[b.level], lifecycleArguments(b.method, inv));
            }
            Object[] testArgs = kind.equals("junit5") ? Jupiter.resolve(test, args, inv, displayName(inv), cls, test) : new Object[0];
            err = runTestMethod(instances[instances.length - 1], testArgs);
        } catch (Throwable e) {
            err = e;
        }
        if (!(err instanceof Abort)) {
            err = runAfters(instances, err, inv);
        }
        return err;
    }

    private Object[] lifecycleArguments(Method m, Invocation inv) throws SetupException {
        return m.getParameterCount() == 0 ? new Object[0] : Jupiter.resolve(m, new Object[0], inv, displayName(inv), cls, test);
    }

    /**
     * The test method itself, its expected exception, then its time limit (JUnit 4 wraps the
     * expectation inside the timeout): the failure, or null.
     */
    private Throwable runTestMethod(Object target, Object[] args) {
        long startedAt = clock();
        Throwable err = null;
        try {
            invoke(test, target, args);
            if (expected != null) {
                err = new AssertionError("Expected exception: " + expected.getName());
            }
        } catch (Throwable e) {
            if (expected == null || !expected.isInstance(e) || e instanceof Abort) {
                err = e;
            }
        }
        // An aborted execution (step bound, deadlock, ...) keeps its own outcome.
        if (timeout != null && !(err instanceof Abort) && timeout.exceededBy(clock() - startedAt)) {
            return timeout.failure(err);
        }
        return err;
    }

    /** @After methods, even after a failure; the first failure wins. */
    private Throwable runAfters(Object[] instances, Throwable err, Invocation inv) {
        for (Bound b : after) {
            try {
                invoke(b.method, Modifier.isStatic(b.method.getModifiers()) ? null : instances[b.level], lifecycleArguments(b.method, inv));
            } catch (Throwable e) {
                if (err == null) {
                    err = e;
                }
                if (e instanceof Abort) {
                    break;
                }
            }
        }
        return err;
    }

    /**
     * Where a method begins: its first line in the class file, for failures the harness raises
     * on its behalf (a timeout has no stack of its own in logical time).
     */
    static StackTraceElement firstLineOf(Method m) {
        Class<?> c = m.getDeclaringClass();
        ClassLoader loader = c.getClassLoader() != null ? c.getClassLoader() : ClassLoader.getSystemClassLoader();
        String descriptor = Type.getMethodDescriptor(m);
        String[] source = {null};
        int[] line = {0};
        try (InputStream in = loader.getResourceAsStream(c.getName().replace('.', '/') + ".class")) {
            if (in != null) {
                new ClassReader(in).accept(new ClassVisitor(Opcodes.ASM9) {
                    @Override
                    public void visitSource(String file, String debug) {
                        source[0] = file;
                    }

                    @Override
                    public MethodVisitor visitMethod(int access, String name, String desc, String signature, String[] exceptions) {
                        if (!name.equals(m.getName()) || !desc.equals(descriptor)) {
                            return null;
                        }
                        return new MethodVisitor(Opcodes.ASM9) {
                            @Override
                            public void visitLineNumber(int number, Label start) {
                                line[0] = line[0] == 0 ? number : Math.min(line[0], number);
                            }
                        };
                    }
                }, ClassReader.SKIP_FRAMES);
            }
        } catch (IOException | RuntimeException e) {
            // no class file to read (generated class): the frame names the method without a line
        }
        return new StackTraceElement(c.getName(), m.getName(), source[0], line[0]);
    }

    /**
     * A test method's time limit, checked against the logical clock when the method returns:
     * JUnit 4's {@code @Test(timeout = ms)}, JUnit 5's {@code @Timeout} on the method or, for
     * its test methods, on the class. The test is not interrupted at the limit (it runs on, as
     * with JUnit's own timeouts); when it returns late, its failure is JUnit's timeout failure.
     */
    static final class Timeout {
        private final long limitNanos;
        private final String message;
        private final boolean jupiter;
        private final Class<?> junit4Exception;
        private final StackTraceElement where;

        private Timeout(long limitNanos, String message, boolean jupiter, Class<?> junit4Exception, Method test) {
            this.limitNanos = limitNanos;
            this.message = message;
            this.jupiter = jupiter;
            this.junit4Exception = junit4Exception;
            this.where = firstLineOf(test);
        }

        /** {@code @Test(timeout = ms)}; null for none (0, JUnit's default, or negative). */
        static Timeout ofJunit4(Method test) throws SetupException {
            Annotation a = annotation(test.getAnnotations(), JUNIT4_TEST);
            long millis;
            try {
                millis = a == null ? 0 : (Long) attribute(a, "timeout");
            } catch (ReflectiveOperationException | ClassCastException e) {
                throw new SetupException("cannot read @Test(timeout) of " + test.getName() + ": " + e);
            }
            if (millis <= 0) {
                return null;
            }
            String message = "test timed out after " + millis + " milliseconds";
            Class<?> exception;
            try {
                exception = Class.forName("org.junit.runners.model.TestTimedOutException", false, test.getDeclaringClass().getClassLoader());
            } catch (ClassNotFoundException | LinkageError e) {
                exception = null; // JUnit before 4.12: an AssertionError with JUnit's message
            }
            return new Timeout(TimeUnit.MILLISECONDS.toNanos(millis), message, false, exception, test);
        }

        /** {@code @Timeout} on the test method, else on its class (inherited); null for none. */
        static Timeout ofJupiter(Class<?> cls, Method test) throws SetupException {
            String timeout = "org.junit.jupiter.api.Timeout";
            Annotation a = annotation(test.getAnnotations(), timeout);
            if (a == null) {
                a = annotation(cls.getAnnotations(), timeout);
            }
            if (a == null) {
                return null;
            }
            long value;
            TimeUnit unit;
            try {
                value = (Long) attribute(a, "value");
                unit = (TimeUnit) attribute(a, "unit");
            } catch (ReflectiveOperationException | ClassCastException e) {
                throw new SetupException("cannot read @Timeout of " + test.getName() + ": " + e);
            }
            if (value <= 0) {
                throw new SetupException("@Timeout of " + test.getName() + " must be positive, is " + value);
            }
            // JUnit's TimeoutDuration: "1 second", "250 milliseconds"
            String label = unit.name().toLowerCase(Locale.ROOT);
            if (value == 1 && label.endsWith("s")) {
                label = label.substring(0, label.length() - 1);
            }
            String message = test.getName() + "() timed out after " + value + " " + label;
            return new Timeout(unit.toNanos(value), message, true, null, test);
        }

        boolean exceededBy(long elapsedNanos) {
            return elapsedNanos > limitNanos;
        }

        /** JUnit's failure for a test that ran too long ({@code testFailure}: what it threw, or null). */
        Throwable failure(Throwable testFailure) {
            Throwable e;
            if (jupiter) {
                e = new java.util.concurrent.TimeoutException(message);
                if (testFailure != null) {
                    e.addSuppressed(testFailure); // as Jupiter's TimeoutExceptionFactory does
                }
            } else {
                e = junit4Failure();
            }
            e.setStackTrace(new StackTraceElement[] {where});
            return e;
        }

        private Throwable junit4Failure() {
            if (junit4Exception != null) {
                try {
                    long millis = TimeUnit.NANOSECONDS.toMillis(limitNanos);
                    return (Throwable) junit4Exception.getConstructor(long.class, TimeUnit.class).newInstance(millis, TimeUnit.MILLISECONDS);
                } catch (ReflectiveOperationException | ClassCastException e) {
                    // a JUnit whose exception has another shape: JUnit's message all the same
                }
            }
            return new AssertionError(message);
        }
    }

    /**
     * JUnit 3: a {@code junit.framework.TestCase} run through {@code runBare()} (setUp, the test
     * method, tearDown, the JUnit 3 way) on a fresh instance per execution, made by the class's
     * {@code (String name)} or no-argument constructor, or taken from a fresh {@code suite()}.
     */
    static final class Junit3 {
        /** A fresh TestCase for the next execution. */
        interface Source {
            Object next() throws Throwable;
        }

        private final Method runBare;
        private final Source source;
        /** The TestCase's class, once known (a suite() may hold one of another class). */
        final Class<?> caseClass;

        private Junit3(Method runBare, Source source, Class<?> caseClass) {
            this.runBare = runBare;
            this.source = source;
            this.caseClass = caseClass;
        }

        /** {@code junit.framework.TestCase} if {@code cls} extends it, else null. */
        static Class<?> testCaseClass(Class<?> cls) {
            try {
                Class<?> testCase = Class.forName("junit.framework.TestCase", false, cls.getClassLoader());
                return testCase.isAssignableFrom(cls) ? testCase : null;
            } catch (ClassNotFoundException | LinkageError e) {
                return null;
            }
        }

        private static boolean isTestMethod(Method m) {
            return m.getParameterCount() == 0 && m.getName().startsWith("test") && m.getReturnType() == void.class
                    && Modifier.isPublic(m.getModifiers());
        }

        /** The public void test*() method {@code name} of {@code cls} (or inherited), else null. */
        static Method testMethod(Class<?> cls, String name) {
            try {
                Method m = cls.getMethod(name);
                return isTestMethod(m) ? m : null;
            } catch (NoSuchMethodException e) {
                return null;
            }
        }

        /** Why a method named {@code name} is not a JUnit 3 test, or null when there is none. */
        static String whyNotATest(Class<?> cls, String name) {
            for (Class<?> c = cls; c != null && c != Object.class; c = c.getSuperclass()) {
                for (Method m : c.getDeclaredMethods()) {
                    if (!m.getName().equals(name)) {
                        continue;
                    }
                    if (!name.startsWith("test")) {
                        return "its name does not start with test";
                    }
                    if (m.getParameterCount() != 0) {
                        return "it has parameters";
                    }
                    if (m.getReturnType() != void.class) {
                        return "it returns " + m.getReturnType().getSimpleName();
                    }
                    if (!Modifier.isPublic(m.getModifiers())) {
                        return "it is not public";
                    }
                }
            }
            return null;
        }

        /** The test methods JUnit 3 would run in {@code cls}, by name. */
        static Set<String> testNames(Class<?> cls) {
            Set<String> names = new LinkedHashSet<>();
            for (Method m : sorted(cls.getMethods())) {
                if (isTestMethod(m)) {
                    names.add(m.getName());
                }
            }
            return names;
        }

        /** The class's own test {@code name}, on a new instance per execution. */
        static Junit3 direct(Class<?> cls, Class<?> testCase, String name) throws SetupException {
            if (Modifier.isAbstract(cls.getModifiers())) {
                throw new SetupException(cls.getName() + " is abstract: name a concrete subclass that inherits " + name + "()");
            }
            Constructor<?> byName = publicConstructor(cls, String.class);
            Constructor<?> noArg = byName == null ? publicConstructor(cls) : null;
            if (byName == null && noArg == null) {
                throw new SetupException(cls.getName() + " has neither a public constructor (String name) nor a public one without parameters: JUnit 3 needs one of them");
            }
            Method setName = method(testCase, "setName", String.class);
            Source source = byName != null ? () -> construct(byName, name) : () -> {
                Object instance = construct(noArg);
                invoke(setName, instance, name);
                return instance;
            };
            return new Junit3(method(testCase, "runBare"), source, cls);
        }

        private static Constructor<?> publicConstructor(Class<?> cls, Class<?>... params) {
            try {
                Constructor<?> c = cls.getConstructor(params);
                c.setAccessible(true); // a package-private test class
                return c;
            } catch (NoSuchMethodException e) {
                return null;
            }
        }

        private static Method method(Class<?> cls, String name, Class<?>... params) throws SetupException {
            try {
                return cls.getMethod(name, params);
            } catch (NoSuchMethodException e) {
                throw new SetupException(cls.getName() + " has no " + name + "(): not the JUnit 3 API racelens knows");
            }
        }

        /** {@code public static junit.framework.Test suite()} of {@code cls}, or null. */
        static Method suiteMethod(Class<?> cls) throws SetupException {
            Method suite;
            try {
                suite = cls.getMethod("suite");
            } catch (NoSuchMethodException e) {
                return null;
            }
            Class<?> test = Suite.junitClass(cls, "junit.framework.Test");
            if (test == null || !test.isAssignableFrom(suite.getReturnType())) {
                return null;
            }
            if (!Modifier.isStatic(suite.getModifiers())) {
                throw new SetupException(cls.getName() + ".suite() must be static (as JUnit requires)");
            }
            suite.setAccessible(true);
            return suite;
        }

        /**
         * The TestCase named {@code name} in the tree of {@code cls}'s suite(); every execution
         * calls suite() again, so that it runs on fresh instances.
         */
        static Junit3 inSuite(Class<?> cls, Method suiteMethod, String name) throws SetupException {
            Suite suite = new Suite(cls, suiteMethod);
            Suite.Found found;
            try {
                found = suite.find(name);
            } catch (Throwable e) {
                throw new SetupException(cls.getName() + ".suite() failed: " + e);
            }
            Object testCase = found.plain.isEmpty() ? null : found.plain.get(0);
            if (testCase == null) {
                throw new SetupException(suite.whyNotFound(name, found));
            }
            Class<?> caseClass = testCase.getClass();
            for (Object other : found.plain) {
                if (other.getClass() != caseClass) {
                    throw new SetupException(cls.getName() + ".suite() holds tests named " + name + " in several classes (" + caseClass.getName() + ", "
                            + other.getClass().getName() + "): name the test's own class instead, CLASS#" + name);
                }
            }
            Source source = () -> suite.fresh(name, caseClass);
            return new Junit3(method(suite.testCase, "runBare"), source, caseClass);
        }

        /** The spec of a test found in a suite: named after the suite's class, run as its TestCase. */
        TestSpec specOf(Class<?> suiteClass, String name) {
            TestSpec t = new TestSpec("junit3", suiteClass, testMethod(caseClass, name), name);
            t.junit3 = this;
            return t;
        }

        /** One execution: a fresh TestCase, then runBare(); the failure, or null. */
        Throwable runOnce() {
            try {
                invoke(runBare, source.next());
                return null;
            } catch (Throwable e) {
                return e;
            }
        }
    }

    /**
     * A JUnit 3 {@code suite()} tree walked by reflection: {@code TestSuite.tests()}, and
     * {@code TestDecorator.getTest()} to say which test a decorator hides. Other kinds of
     * {@code Test} (JUnit4TestAdapter, a project's own) cannot be looked into.
     */
    static final class Suite {
        /** What a walk found: the TestCases of a name, plain or inside a decorator, and what it could not open. */
        static final class Found {
            final List<Object> plain = new ArrayList<>();
            final Set<String> decorators = new LinkedHashSet<>();
            final Set<String> opaque = new LinkedHashSet<>();
            final Set<String> names = new LinkedHashSet<>();
        }

        private static final int MAX_DEPTH = 64;

        private final Class<?> owner;
        private final Method suiteMethod;
        final Class<?> testCase;
        private final Class<?> testSuite;
        private final Class<?> decorator;

        Suite(Class<?> owner, Method suiteMethod) throws SetupException {
            this.owner = owner;
            this.suiteMethod = suiteMethod;
            this.testCase = junitClass(owner, "junit.framework.TestCase");
            this.testSuite = junitClass(owner, "junit.framework.TestSuite");
            this.decorator = junitClass(owner, "junit.extensions.TestDecorator");
            if (testCase == null || testSuite == null) {
                throw new SetupException(owner.getName() + " has a suite() but junit.framework is not on the classpath");
            }
        }

        static Class<?> junitClass(Class<?> owner, String name) {
            try {
                return Class.forName(name, false, owner.getClassLoader());
            } catch (ClassNotFoundException | LinkageError e) {
                return null;
            }
        }

        Found find(String name) throws Throwable {
            Found found = new Found();
            walk(invoke(suiteMethod, null), name, null, 0, found);
            return found;
        }

        /** A fresh instance of the test: suite() again, and its TestCase {@code name} of {@code caseClass}. */
        Object fresh(String name, Class<?> caseClass) throws Throwable {
            for (Object t : find(name).plain) {
                if (t.getClass() == caseClass) {
                    return t;
                }
            }
            throw new IllegalStateException("racelens: this call of " + owner.getName() + ".suite() holds no " + caseClass.getName() + " named " + name
                    + " (the suite changes from one call to the next)");
        }

        private void walk(Object test, String name, String insideDecorator, int depth, Found found) throws Throwable {
            if (depth > MAX_DEPTH) {
                throw new IllegalStateException("suites nested deeper than " + MAX_DEPTH);
            }
            if (testSuite.isInstance(test)) {
                Enumeration<?> children = (Enumeration<?>) invoke(testSuite.getMethod("tests"), test);
                while (children.hasMoreElements()) {
                    walk(children.nextElement(), name, insideDecorator, depth + 1, found);
                }
            } else if (testCase.isInstance(test)) {
                String caseName = (String) invoke(testCase.getMethod("getName"), test);
                found.names.add(caseName);
                if (name.equals(caseName)) {
                    if (insideDecorator == null) {
                        found.plain.add(test);
                    } else {
                        found.decorators.add(insideDecorator);
                    }
                }
            } else if (decorator != null && decorator.isInstance(test)) {
                Object inner = invoke(decorator.getMethod("getTest"), test);
                walk(inner, name, insideDecorator != null ? insideDecorator : test.getClass().getName(), depth + 1, found);
            } else if (test != null) {
                found.opaque.add(test.getClass().getName());
            }
        }

        String whyNotFound(String name, Found found) {
            String suite = owner.getName() + ".suite()";
            if (!found.decorators.isEmpty()) {
                return suite + " runs " + name + " only inside " + String.join(", ", found.decorators)
                        + ": racelens runs a TestCase on its own (a fresh instance, runBare()), not through decorators such as TestSetup or RepeatedTest,"
                        + " so their set-up would be missing; name the test's own class instead, CLASS#" + name;
            }
            StringBuilder sb = new StringBuilder("no test named " + name + " in " + suite);
            List<String> names = new ArrayList<>(found.names);
            if (!names.isEmpty()) {
                sb.append(" (its tests: ").append(String.join(", ", names.subList(0, Math.min(names.size(), 12))))
                        .append(names.size() > 12 ? ", ..." : "").append(')');
            }
            if (!found.opaque.isEmpty()) {
                sb.append("; racelens follows TestSuite.tests() and decorators only, and cannot look into ").append(String.join(", ", found.opaque));
            }
            return sb.toString();
        }
    }
}
