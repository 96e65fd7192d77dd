package racelens.agent;

import java.lang.annotation.Annotation;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;

/**
 * One test to run again and again: found by annotation name through reflection (racelens does not
 * link against JUnit). JUnit 4, JUnit 5 (Jupiter) or a {@code static main(String[])}.
 */
final class TestSpec {
    static final class SetupException extends Exception {
        private static final long serialVersionUID = 1L;

        SetupException(String msg) {
            super(msg);
        }
    }

    final String kind;
    final Class<?> cls;
    final Method test;
    final List<Method> beforeAll = new ArrayList<>();
    final List<Method> afterAll = new ArrayList<>();
    final List<Method> before = new ArrayList<>();
    final List<Method> after = new ArrayList<>();
    Class<?> expected;
    Constructor<?> ctor;

    private TestSpec(String kind, Class<?> cls, Method test) {
        this.kind = kind;
        this.cls = cls;
        this.test = test;
    }

    String describe() {
        return kind + " " + cls.getName() + "#" + test.getName();
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
        if (!main) {
            int hash = rest.indexOf('#');
            if (hash < 0) {
                throw new SetupException("test spec must be junit:<class>#<method>, got " + spec);
            }
            className = rest.substring(0, hash);
            methodName = rest.substring(hash + 1);
        }
        Class<?> cls;
        try {
            cls = Class.forName(className, false, ClassLoader.getSystemClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            throw new SetupException("class not found: " + className + " (" + e + ")");
        }
        if (main) {
            try {
                Method m = cls.getMethod("main", String[].class);
                if (!Modifier.isStatic(m.getModifiers())) {
                    throw new SetupException(className + ".main(String[]) is not static");
                }
                m.setAccessible(true);
                return new TestSpec("main", cls, m);
            } catch (NoSuchMethodException e) {
                throw new SetupException("no static main(String[]) in " + className);
            }
        }
        Method test = null;
        String kind = null;
        for (Class<?> c = cls; c != null && c != Object.class && test == null; c = c.getSuperclass()) {
            for (Method m : c.getDeclaredMethods()) {
                if (!m.getName().equals(methodName) || m.getParameterCount() != 0) {
                    continue;
                }
                if (annotated(m, "org.junit.Test")) {
                    test = m;
                    kind = "junit4";
                } else if (annotated(m, "org.junit.jupiter.api.Test")) {
                    test = m;
                    kind = "junit5";
                }
            }
        }
        if (test == null) {
            throw new SetupException("no @Test method " + methodName + "() without parameters in " + className);
        }
        TestSpec t = new TestSpec(kind, cls, test);
        boolean j4 = kind.equals("junit4");
        String bEach = j4 ? "org.junit.Before" : "org.junit.jupiter.api.BeforeEach";
        String aEach = j4 ? "org.junit.After" : "org.junit.jupiter.api.AfterEach";
        String bAll = j4 ? "org.junit.BeforeClass" : "org.junit.jupiter.api.BeforeAll";
        String aAll = j4 ? "org.junit.AfterClass" : "org.junit.jupiter.api.AfterAll";
        List<Class<?>> chain = new ArrayList<>();
        for (Class<?> c = cls; c != null && c != Object.class; c = c.getSuperclass()) {
            chain.add(0, c);
        }
        for (Class<?> c : chain) { // superclass first
            for (Method m : sorted(c.getDeclaredMethods())) {
                if (annotated(m, bEach)) {
                    t.before.add(access(m, false));
                }
                if (annotated(m, bAll)) {
                    t.beforeAll.add(access(m, true));
                }
            }
        }
        for (int i = chain.size() - 1; i >= 0; i--) { // subclass first
            for (Method m : sorted(chain.get(i).getDeclaredMethods())) {
                if (annotated(m, aEach)) {
                    t.after.add(access(m, false));
                }
                if (annotated(m, aAll)) {
                    t.afterAll.add(access(m, true));
                }
            }
        }
        if (!j4 && test.getParameterCount() > 0) {
            throw new SetupException("JUnit 5 test methods with parameters are not supported");
        }
        access(test, false);
        if (j4) {
            t.expected = expectedOf(test);
        }
        if (!Modifier.isStatic(test.getModifiers())) {
            try {
                t.ctor = cls.getDeclaredConstructor();
                t.ctor.setAccessible(true);
            } catch (NoSuchMethodException e) {
                throw new SetupException(className + " has no constructor without parameters");
            }
        }
        return t;
    }

    private static Method[] sorted(Method[] ms) {
        java.util.Arrays.sort(ms, (a, b) -> a.getName().compareTo(b.getName()));
        return ms;
    }

    private static Method access(Method m, boolean mustBeStatic) throws SetupException {
        if (m.getParameterCount() != 0) {
            throw new SetupException("lifecycle method " + m.getName() + " has parameters (not supported)");
        }
        if (mustBeStatic && !Modifier.isStatic(m.getModifiers())) {
            throw new SetupException(m.getName() + " must be static");
        }
        m.setAccessible(true);
        return m;
    }

    static boolean annotated(Method m, String annotation) {
        for (Annotation a : m.getAnnotations()) {
            if (a.annotationType().getName().equals(annotation)) {
                return true;
            }
        }
        return false;
    }

    private static Class<?> expectedOf(Method m) {
        for (Annotation a : m.getAnnotations()) {
            if (a.annotationType().getName().equals("org.junit.Test")) {
                try {
                    Object v = a.annotationType().getMethod("expected").invoke(a);
                    if (v instanceof Class && !((Class<?>) v).getName().equals("org.junit.Test$None")) {
                        return (Class<?>) v;
                    }
                } catch (ReflectiveOperationException e) {
                    return null;
                }
            }
        }
        return null;
    }

    void runAll(List<Method> ms) throws Throwable {
        for (Method m : ms) {
            invoke(m, null);
        }
    }

    static void invoke(Method m, Object target, Object... args) throws Throwable {
        try {
            m.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    static boolean isSkip(Throwable t) {
        String n = t.getClass().getName();
        return n.equals("org.junit.AssumptionViolatedException") || n.equals("org.junit.internal.AssumptionViolatedException")
                || n.equals("org.opentest4j.TestAbortedException");
    }

    /** One execution of the test in the calling thread (thread 0); returns the failure or null. */
    Throwable runOnce() {
        if (kind.equals("main")) {
            try {
                invoke(test, null, (Object) new String[0]);
                return null;
            } catch (Throwable e) {
                return e;
            }
        }
        Object target = null;
        Throwable err = null;
        try {
            if (ctor != null) {
                try {
                    target = ctor.newInstance();
                } catch (InvocationTargetException e) {
                    throw e.getCause();
                }
            }
            for (Method m : before) {
                invoke(m, Modifier.isStatic(m.getModifiers()) ? null : target);
            }
            try {
                invoke(test, target);
                if (expected != null) {
                    err = new AssertionError("Expected exception: " + expected.getName());
                }
            } catch (Throwable e) {
                if (expected == null || !expected.isInstance(e) || e instanceof racelens.rt.Abort) {
                    throw e;
                }
            }
        } catch (Throwable e) {
            err = e;
        }
        if (!(err instanceof racelens.rt.Abort)) {
            for (Method m : after) {
                try {
                    invoke(m, Modifier.isStatic(m.getModifiers()) ? null : target);
                } catch (Throwable e) {
                    if (err == null) {
                        err = e;
                    }
                    if (e instanceof racelens.rt.Abort) {
                        break;
                    }
                }
            }
        }
        return err != null && isSkip(err) ? null : err;
    }
}
