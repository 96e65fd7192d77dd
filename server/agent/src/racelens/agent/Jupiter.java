package racelens.agent;

import java.lang.annotation.Annotation;
import java.lang.reflect.Array;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Parameter;
import java.lang.reflect.Proxy;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.BaseStream;

/**
 * What racelens does of JUnit 5 (Jupiter) beyond a plain {@code @Test}, by reflection (racelens
 * does not link against JUnit): the parameters Jupiter resolves itself ({@code TestInfo},
 * {@code TestReporter}, {@code RepetitionInfo}), the invocations of a {@code @RepeatedTest} and of
 * a {@code @ParameterizedTest} with the common sources ({@code @ValueSource}, {@code @CsvSource},
 * {@code @MethodSource}, {@code @EnumSource}, {@code @NullSource}, {@code @EmptySource},
 * {@code @NullAndEmptySource}) and Jupiter's implicit conversion of their values, and the
 * extensions racelens refuses by name before any schedule: every {@code @ExtendWith} (also
 * inside another annotation, such as {@code @SpringBootTest} or the conditions
 * {@code @EnabledOnOs}), {@code @RegisterExtension} and {@code @TempDir}, since an extension
 * runs through JUnit's engine, which racelens does not use.
 */
final class Jupiter {
    private Jupiter() {}

    static final String API = "org.junit.jupiter.api.";
    static final String PROVIDER = "org.junit.jupiter.params.provider.";
    /** The extension behind {@code @ParameterizedTest}: what this class does instead. */
    private static final String PARAMETERIZED_EXTENSION = "org.junit.jupiter.params.ParameterizedTestExtension";
    /** More invocations than this: a source racelens will not enumerate (an endless stream). */
    private static final int MAX_INVOCATIONS = 10_000;

    // ---- extensions racelens refuses ----

    /**
     * Refuses, by name, the extensions that would take part in running {@code test} of
     * {@code levels} (outermost first): their classes and superclasses, the test method and its
     * parameters, the constructors' parameters and the fields.
     */
    static void refuseExtensions(List<Class<?>> levels, Method test) throws TestSpec.SetupException {
        Set<String> found = new LinkedHashSet<>();
        for (Class<?> level : levels) {
            for (Class<?> c = level; c != null && c != Object.class; c = c.getSuperclass()) {
                extensionsIn(c.getAnnotations(), "on " + c.getName(), found, new HashSet<>());
                for (Class<?> i : c.getInterfaces()) {
                    extensionsIn(i.getAnnotations(), "on " + i.getName(), found, new HashSet<>());
                }
                for (Field f : c.getDeclaredFields()) {
                    for (Annotation a : f.getAnnotations()) {
                        String n = a.annotationType().getName();
                        if (n.equals(API + "extension.RegisterExtension")) {
                            found.add("@RegisterExtension " + f.getType().getSimpleName() + " " + f.getName() + " in " + c.getName());
                        } else if (n.equals(API + "io.TempDir")) {
                            found.add("@TempDir on the field " + f.getName() + " of " + c.getName());
                        }
                    }
                    extensionsIn(f.getAnnotations(), "on the field " + f.getName() + " of " + c.getName(), found, new HashSet<>());
                }
                for (Constructor<?> k : c.getDeclaredConstructors()) {
                    parameterExtensions(k, found);
                }
            }
        }
        extensionsIn(test.getAnnotations(), "on " + test.getName() + "()", found, new HashSet<>());
        parameterExtensions(test, found);
        if (!found.isEmpty()) {
            throw new TestSpec.SetupException("not explored: racelens cannot honour JUnit 5 extensions, which run through JUnit's engine: " + String.join("; ", found)
                    + " (racelens runs the test's lifecycle itself, so the extension would be missing)");
        }
    }

    private static void parameterExtensions(Executable e, Set<String> found) {
        for (Parameter p : e.getParameters()) {
            for (Annotation a : p.getAnnotations()) {
                if (a.annotationType().getName().equals(API + "io.TempDir")) {
                    found.add("@TempDir on a parameter of " + e.getName());
                }
            }
            extensionsIn(p.getAnnotations(), "on a parameter of " + e.getName(), found, new HashSet<>());
        }
    }

    /** {@code @ExtendWith} among {@code annotations} or their meta-annotations. */
    private static void extensionsIn(Annotation[] annotations, String where, Set<String> found, Set<Class<?>> seen) {
        for (Annotation a : annotations) {
            Class<?> type = a.annotationType();
            if (!seen.add(type) || type.getName().startsWith("java.lang.annotation.")) {
                continue;
            }
            if (type.getName().equals(API + "extension.ExtendWith") || type.getName().equals(API + "extension.Extensions")) {
                for (Annotation one : type.getName().endsWith("Extensions") ? (Annotation[]) value(a) : new Annotation[] {a}) {
                    for (Class<?> x : (Class<?>[]) value(one)) {
                        if (!x.getName().equals(PARAMETERIZED_EXTENSION)) {
                            found.add("@ExtendWith(" + x.getSimpleName() + ".class) " + where);
                        }
                    }
                }
            } else {
                int before = found.size();
                extensionsIn(type.getAnnotations(), where, found, seen);
                if (found.size() > before && !type.getName().startsWith(API)) {
                    // name what the test wrote too: `@SpringBootTest` brings the extension
                    List<String> added = new ArrayList<>(found);
                    for (int i = before; i < added.size(); i++) {
                        found.remove(added.get(i));
                        found.add(added.get(i).replace(" " + where, " (through @" + type.getSimpleName() + ") " + where));
                    }
                }
            }
        }
    }

    private static Object value(Annotation a) {
        try {
            return TestSpec.attribute(a, "value");
        } catch (ReflectiveOperationException e) {
            return new Object[0];
        }
    }

    // ---- invocations ----

    /** The invocations of a {@code @RepeatedTest} or {@code @ParameterizedTest}; null for a plain {@code @Test}. */
    static List<Invocation> invocations(Class<?> cls, Method test) throws TestSpec.SetupException {
        Annotation repeated = TestSpec.annotation(test.getAnnotations(), API + "RepeatedTest");
        if (repeated != null) {
            int n;
            try {
                n = (Integer) TestSpec.attribute(repeated, "value");
            } catch (ReflectiveOperationException | ClassCastException e) {
                throw new TestSpec.SetupException("cannot read @RepeatedTest of " + test.getName() + ": " + e);
            }
            if (n <= 0) {
                throw new TestSpec.SetupException("@RepeatedTest of " + test.getName() + "() must repeat at least once (JUnit fails it)");
            }
            List<Invocation> out = new ArrayList<>();
            for (int k = 1; k <= n; k++) {
                out.add(new Invocation(k, "repetition " + k + " of " + n, null, 0, k, n));
            }
            return out;
        }
        if (TestSpec.annotation(test.getAnnotations(), "org.junit.jupiter.params.ParameterizedTest") == null) {
            return null;
        }
        List<Invocation.Source> sources = new ArrayList<>();
        for (Annotation a : test.getDeclaredAnnotations()) {
            Invocation.Source s = source(cls, test, a);
            if (s != null) {
                sources.add(s);
            }
        }
        if (sources.isEmpty()) {
            throw new TestSpec.SetupException("@ParameterizedTest " + test.getName() + "() has no source of arguments racelens knows"
                    + " (@ValueSource, @CsvSource, @MethodSource, @EnumSource, @NullSource, @EmptySource, @NullAndEmptySource)");
        }
        List<Invocation> out = new ArrayList<>();
        for (Invocation.Source s : sources) {
            List<Object[]> sets;
            try {
                sets = s.all();
            } catch (TestSpec.SetupException e) {
                throw e;
            } catch (Throwable e) {
                throw new TestSpec.SetupException("the arguments of " + test.getName() + "() could not be made: " + e);
            }
            for (int i = 0; i < sets.size(); i++) {
                Object[] args = sets.get(i);
                out.add(new Invocation(out.size() + 1, display(args), s, i, 0, 0));
                // a value no parameter takes, or a parameter nothing gives, fails before any schedule
                convertAll(test, args);
                Class<?>[] types = test.getParameterTypes();
                for (int k = args.length; k < types.length; k++) {
                    resolved(types[k], test, k, null, "", cls, test);
                }
            }
        }
        if (out.isEmpty()) {
            throw new TestSpec.SetupException("@ParameterizedTest " + test.getName() + "() has no arguments: JUnit fails it");
        }
        return out;
    }

    /** {@code 5, "x"} as Jupiter shows arguments (arrays by their elements). */
    private static String display(Object[] args) {
        StringBuilder sb = new StringBuilder();
        for (Object a : args) {
            sb.append(sb.length() == 0 ? "" : ", ");
            if (a != null && a.getClass().isArray()) {
                sb.append(a instanceof Object[] ? Arrays.deepToString((Object[]) a) : arrayText(a));
            } else {
                sb.append(a);
            }
        }
        return sb.toString();
    }

    private static String arrayText(Object array) {
        List<Object> items = new ArrayList<>();
        for (int i = 0; i < Array.getLength(array); i++) {
            items.add(Array.get(array, i));
        }
        return items.toString();
    }

    /** The source an annotation of the test method stands for; null for an annotation that is none. */
    private static Invocation.Source source(Class<?> cls, Method test, Annotation a) throws TestSpec.SetupException {
        String n = a.annotationType().getName();
        switch (n) {
            case PROVIDER + "ValueSource":
                return () -> valueSource(a);
            case PROVIDER + "CsvSource":
                return () -> csvSource(a);
            case PROVIDER + "EnumSource":
                return () -> enumSource(a, test);
            case PROVIDER + "MethodSource":
                return methodSource(cls, test, a);
            case PROVIDER + "NullSource":
                return () -> Collections.singletonList(new Object[] {null});
            case PROVIDER + "EmptySource":
                return () -> Collections.singletonList(new Object[] {empty(test)});
            case PROVIDER + "NullAndEmptySource":
                return () -> Arrays.asList(new Object[] {null}, new Object[] {empty(test)});
            default:
                if (n.equals(PROVIDER + "ArgumentsSource") || isArgumentsSource(a.annotationType(), new HashSet<>())) {
                    throw new TestSpec.SetupException("racelens cannot make the arguments of @" + a.annotationType().getSimpleName() + " on " + test.getName()
                            + "() (it knows @ValueSource, @CsvSource, @MethodSource, @EnumSource, @NullSource, @EmptySource and @NullAndEmptySource)");
                }
                return null;
        }
    }

    private static boolean isArgumentsSource(Class<?> type, Set<Class<?>> seen) {
        for (Annotation meta : type.getAnnotations()) {
            Class<?> t = meta.annotationType();
            if (t.getName().equals(PROVIDER + "ArgumentsSource") || (seen.add(t) && !t.getName().startsWith("java.") && isArgumentsSource(t, seen))) {
                return true;
            }
        }
        return false;
    }

    private static List<Object[]> valueSource(Annotation a) throws ReflectiveOperationException, TestSpec.SetupException {
        List<Object[]> out = new ArrayList<>();
        String[] kinds = {"shorts", "bytes", "ints", "longs", "floats", "doubles", "chars", "booleans", "strings", "classes"};
        int nonEmpty = 0;
        for (String kind : kinds) {
            Object values = TestSpec.attribute(a, kind);
            int length = Array.getLength(values);
            if (length > 0) {
                nonEmpty++;
            }
            for (int i = 0; i < length; i++) {
                out.add(new Object[] {Array.get(values, i)});
            }
        }
        if (nonEmpty != 1) {
            throw new TestSpec.SetupException("@ValueSource must give exactly one kind of value (JUnit fails it)");
        }
        return out;
    }

    private static List<Object[]> csvSource(Annotation a) throws ReflectiveOperationException, TestSpec.SetupException {
        String[] lines = (String[]) TestSpec.attribute(a, "value");
        String block = (String) TestSpec.attribute(a, "textBlock");
        char delimiter = (Character) TestSpec.attribute(a, "delimiter");
        String delimiterString = (String) TestSpec.attribute(a, "delimiterString");
        char quote = (Character) TestSpec.attribute(a, "quoteCharacter");
        Set<String> nulls = new HashSet<>(Arrays.asList((String[]) TestSpec.attribute(a, "nullValues")));
        String emptyValue = (String) TestSpec.attribute(a, "emptyValue");
        boolean trim = (Boolean) TestSpec.attribute(a, "ignoreLeadingAndTrailingWhitespace");
        boolean headers = (Boolean) TestSpec.attribute(a, "useHeadersInDisplayName");
        String sep = !delimiterString.isEmpty() ? delimiterString : String.valueOf(delimiter == '\0' ? ',' : delimiter);
        List<String> rows = new ArrayList<>();
        if (!block.isEmpty()) {
            for (String line : block.split("\n", -1)) {
                if (!line.trim().isEmpty() && !line.trim().startsWith("#")) {
                    rows.add(line);
                }
            }
        } else {
            rows.addAll(Arrays.asList(lines));
        }
        List<Object[]> out = new ArrayList<>();
        for (int r = headers ? 1 : 0; r < rows.size(); r++) {
            out.add(csvLine(rows.get(r), sep, quote, nulls, emptyValue, trim));
        }
        return out;
    }

    /** One CSV line as Jupiter reads it: quoted values keep their spaces, {@code ''} is the empty value, nothing is null. */
    private static Object[] csvLine(String line, String sep, char quote, Set<String> nulls, String emptyValue, boolean trim) {
        List<Object> values = new ArrayList<>();
        int i = 0;
        while (true) {
            StringBuilder raw = new StringBuilder();
            boolean quoted = false;
            // leading white space before a quote does not count
            int j = i;
            while (j < line.length() && Character.isWhitespace(line.charAt(j))) {
                j++;
            }
            if (j < line.length() && line.charAt(j) == quote) {
                quoted = true;
                j++;
                while (j < line.length()) {
                    char c = line.charAt(j);
                    if (c == quote) {
                        if (j + 1 < line.length() && line.charAt(j + 1) == quote) {
                            raw.append(quote);
                            j += 2;
                            continue;
                        }
                        j++;
                        break;
                    }
                    raw.append(c);
                    j++;
                }
                int next = line.indexOf(sep, j);
                i = next < 0 ? line.length() : next;
            } else {
                int next = line.indexOf(sep, i);
                int end = next < 0 ? line.length() : next;
                raw.append(line, i, end);
                i = end;
            }
            String text = raw.toString();
            if (!quoted && trim) {
                text = text.trim();
            }
            Object v;
            if (!quoted && nulls.contains(text)) {
                v = null;
            } else if (quoted && text.isEmpty()) {
                v = emptyValue;
            } else if (!quoted && text.isEmpty()) {
                v = null;
            } else {
                v = quoted && nulls.contains(text) ? null : text;
            }
            values.add(v);
            if (i >= line.length()) {
                break;
            }
            i += sep.length();
        }
        return values.toArray();
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static List<Object[]> enumSource(Annotation a, Method test) throws ReflectiveOperationException, TestSpec.SetupException {
        Class<?> type = (Class<?>) TestSpec.attribute(a, "value");
        if (!type.isEnum()) { // NullEnum: the first parameter's type
            if (test.getParameterCount() == 0 || !test.getParameterTypes()[0].isEnum()) {
                throw new TestSpec.SetupException("@EnumSource on " + test.getName() + "() names no enum and its first parameter is none");
            }
            type = test.getParameterTypes()[0];
        }
        List<String> names = Arrays.asList((String[]) TestSpec.attribute(a, "names"));
        String mode = String.valueOf(TestSpec.attribute(a, "mode"));
        List<Object[]> out = new ArrayList<>();
        for (Object constant : type.getEnumConstants()) {
            String name = ((Enum) constant).name();
            boolean keep;
            switch (mode) {
                case "EXCLUDE":
                    keep = !names.contains(name);
                    break;
                case "MATCH_ALL":
                    keep = names.stream().allMatch(name::matches);
                    break;
                case "MATCH_ANY":
                    keep = names.stream().anyMatch(name::matches);
                    break;
                default:
                    keep = names.isEmpty() || names.contains(name);
            }
            if (keep) {
                out.add(new Object[] {constant});
            }
        }
        return out;
    }

    private static Invocation.Source methodSource(Class<?> cls, Method test, Annotation a) throws TestSpec.SetupException {
        String[] names;
        try {
            names = (String[]) TestSpec.attribute(a, "value");
        } catch (ReflectiveOperationException e) {
            throw new TestSpec.SetupException("cannot read @MethodSource of " + test.getName() + ": " + e);
        }
        if (names.length == 0) {
            names = new String[] {test.getName()};
        }
        List<Method> factories = new ArrayList<>();
        for (String name : names) {
            factories.add(factory(cls, test, name));
        }
        return () -> {
            List<Object[]> out = new ArrayList<>();
            for (Method f : factories) {
                for (Object item : items(TestSpec.invoke(f, null))) {
                    out.add(toArguments(item));
                    if (out.size() > MAX_INVOCATIONS) {
                        throw new TestSpec.SetupException(f.getName() + "() gives more than " + MAX_INVOCATIONS + " sets of arguments: too many to explore each");
                    }
                }
            }
            return out;
        };
    }

    /** The static factory {@code name} ({@code m}, {@code m()}, {@code pkg.Class#m}). */
    private static Method factory(Class<?> cls, Method test, String name) throws TestSpec.SetupException {
        Class<?> owner = cls;
        String method = name.endsWith("()") ? name.substring(0, name.length() - 2) : name;
        int hash = method.indexOf('#');
        if (hash >= 0) {
            try {
                owner = Class.forName(method.substring(0, hash), false, cls.getClassLoader());
            } catch (ClassNotFoundException | LinkageError e) {
                throw new TestSpec.SetupException("@MethodSource(\"" + name + "\") of " + test.getName() + "(): no class " + method.substring(0, hash));
            }
            method = method.substring(hash + 1);
        }
        if (method.contains("(")) {
            throw new TestSpec.SetupException("@MethodSource(\"" + name + "\") of " + test.getName() + "(): racelens finds factory methods without parameters only");
        }
        for (Class<?> c = owner; c != null && c != Object.class; c = c.getSuperclass()) {
            for (Method m : c.getDeclaredMethods()) {
                if (m.getName().equals(method) && m.getParameterCount() == 0) {
                    if (!Modifier.isStatic(m.getModifiers())) {
                        throw new TestSpec.SetupException("the factory " + m.getName() + "() of @MethodSource on " + test.getName() + "() must be static (as JUnit requires without @TestInstance(PER_CLASS))");
                    }
                    m.setAccessible(true);
                    return m;
                }
            }
        }
        throw new TestSpec.SetupException("@MethodSource of " + test.getName() + "(): no method " + method + "() without parameters in " + owner.getName());
    }

    /** The elements of what a factory returned: a stream, an iterable, an iterator or an array. */
    private static List<Object> items(Object result) throws TestSpec.SetupException {
        List<Object> out = new ArrayList<>();
        Iterator<?> it;
        if (result instanceof BaseStream) {
            it = ((BaseStream<?, ?>) result).iterator();
        } else if (result instanceof Iterable) {
            it = ((Iterable<?>) result).iterator();
        } else if (result instanceof Iterator) {
            it = (Iterator<?>) result;
        } else if (result != null && result.getClass().isArray()) {
            for (int i = 0; i < Array.getLength(result); i++) {
                out.add(Array.get(result, i));
            }
            return out;
        } else {
            throw new TestSpec.SetupException("a @MethodSource factory returned " + (result == null ? "null" : result.getClass().getName())
                    + ", not a Stream, Iterable, Iterator or array");
        }
        while (it.hasNext()) {
            out.add(it.next());
            if (out.size() > MAX_INVOCATIONS) {
                throw new TestSpec.SetupException("a @MethodSource factory gives more than " + MAX_INVOCATIONS + " sets of arguments: too many to explore each");
            }
        }
        return out;
    }

    /** An element as arguments: {@code Arguments.get()}, an {@code Object[]} spread, else one argument. */
    private static Object[] toArguments(Object item) throws Throwable {
        if (item != null && implementsArguments(item.getClass())) {
            Method get = item.getClass().getMethod("get");
            get.setAccessible(true);
            return (Object[]) TestSpec.invoke(get, item);
        }
        if (item instanceof Object[]) {
            return (Object[]) item;
        }
        return new Object[] {item};
    }

    private static boolean implementsArguments(Class<?> c) {
        for (Class<?> k = c; k != null; k = k.getSuperclass()) {
            for (Class<?> i : k.getInterfaces()) {
                if (i.getName().equals(PROVIDER + "Arguments") || implementsArguments(i)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** {@code @EmptySource}'s value for the test's one parameter. */
    private static Object empty(Method test) throws TestSpec.SetupException {
        if (test.getParameterCount() == 0) {
            throw new TestSpec.SetupException("@EmptySource on " + test.getName() + "() needs a parameter");
        }
        Class<?> t = test.getParameterTypes()[0];
        if (t == String.class) {
            return "";
        }
        if (t.isArray()) {
            return Array.newInstance(t.getComponentType(), 0);
        }
        if (t == List.class || t == java.util.Collection.class) {
            return new ArrayList<>();
        }
        if (t == java.util.SortedSet.class || t == java.util.NavigableSet.class) {
            return new TreeSet<>();
        }
        if (t == Set.class) {
            return new HashSet<>();
        }
        if (t == java.util.SortedMap.class || t == java.util.NavigableMap.class) {
            return new TreeMap<>();
        }
        if (t == java.util.Map.class) {
            return new HashMap<>();
        }
        throw new TestSpec.SetupException("@EmptySource cannot give an empty " + t.getSimpleName() + " (JUnit gives empty strings, collections, maps and arrays)");
    }

    // ---- parameters ----

    /**
     * The arguments of a test or lifecycle method: {@code indexed} for its first parameters (a
     * parameterized test's, converted as Jupiter converts them), then what Jupiter resolves
     * itself.
     */
    static Object[] resolve(Method m, Object[] indexed, Invocation inv, String displayName, Class<?> testClass, Method test) throws TestSpec.SetupException {
        Class<?>[] types = m.getParameterTypes();
        Object[] out = new Object[types.length];
        for (int i = 0; i < types.length; i++) {
            if (i < indexed.length) {
                out[i] = convert(indexed[i], types[i], m, i);
                continue;
            }
            out[i] = resolved(types[i], m, i, inv, displayName, testClass, test);
        }
        return out;
    }

    private static void convertAll(Method test, Object[] args) throws TestSpec.SetupException {
        Class<?>[] types = test.getParameterTypes();
        for (int i = 0; i < Math.min(types.length, args.length); i++) {
            convert(args[i], types[i], test, i);
        }
    }

    private static Object resolved(Class<?> type, Method m, int i, Invocation inv, String displayName, Class<?> testClass, Method test) throws TestSpec.SetupException {
        String n = type.getName();
        if (n.equals(API + "TestInfo")) {
            return proxy(type, (p, method, a) -> {
                switch (method.getName()) {
                    case "getDisplayName":
                        return displayName;
                    case "getTags":
                        return Collections.emptySet();
                    case "getTestClass":
                        return Optional.of(testClass);
                    case "getTestMethod":
                        return Optional.of(test);
                    default:
                        return objectMethod(p, method, a, "TestInfo [displayName = '" + displayName + "']");
                }
            });
        }
        if (n.equals(API + "RepetitionInfo") && inv != null && inv.repetitions > 0) {
            return proxy(type, (p, method, a) -> {
                switch (method.getName()) {
                    case "getCurrentRepetition":
                        return inv.repetition;
                    case "getTotalRepetitions":
                        return inv.repetitions;
                    default:
                        return objectMethod(p, method, a, "RepetitionInfo [currentRepetition = " + inv.repetition + ", totalRepetitions = " + inv.repetitions + "]");
                }
            });
        }
        if (n.equals(API + "TestReporter")) {
            return proxy(type, (p, method, a) -> {
                if (method.isDefault()) {
                    return InvocationHandler.invokeDefault(p, method, a);
                }
                return method.getName().equals("publishEntry") ? null : objectMethod(p, method, a, "TestReporter");
            });
        }
        throw new TestSpec.SetupException("not explored: parameter " + (i + 1) + " (" + type.getSimpleName() + ") of " + m.getName()
                + "() needs a ParameterResolver, which racelens does not run (it resolves TestInfo, TestReporter, RepetitionInfo in a @RepeatedTest, and a @ParameterizedTest's arguments)");
    }

    private static Object proxy(Class<?> iface, InvocationHandler h) {
        return Proxy.newProxyInstance(iface.getClassLoader(), new Class<?>[] {iface}, h);
    }

    private static Object objectMethod(Object proxy, Method method, Object[] args, String text) {
        switch (method.getName()) {
            case "equals":
                return proxy == args[0];
            case "hashCode":
                return System.identityHashCode(proxy);
            default:
                return text;
        }
    }

    /** Jupiter's implicit conversion of an argument to a parameter's type (widening, and from strings). */
    static Object convert(Object v, Class<?> target, Method m, int i) throws TestSpec.SetupException {
        Class<?> boxed = boxed(target);
        if (v == null) {
            if (target.isPrimitive()) {
                throw new TestSpec.SetupException("argument " + (i + 1) + " of " + m.getName() + "() is null, but its parameter is a " + target.getName());
            }
            return null;
        }
        if (boxed.isInstance(v)) {
            return v;
        }
        if (v instanceof Number || v instanceof Character) {
            Object widened = widen(v, boxed);
            if (widened != null) {
                return widened;
            }
        }
        if (v instanceof String) {
            String s = (String) v;
            try {
                if (boxed == Integer.class) return Integer.valueOf(s.trim());
                if (boxed == Long.class) return Long.valueOf(s.trim());
                if (boxed == Short.class) return Short.valueOf(s.trim());
                if (boxed == Byte.class) return Byte.valueOf(s.trim());
                if (boxed == Double.class) return Double.valueOf(s.trim());
                if (boxed == Float.class) return Float.valueOf(s.trim());
                if (boxed == Boolean.class && (s.equalsIgnoreCase("true") || s.equalsIgnoreCase("false"))) return Boolean.valueOf(s);
                if (boxed == Character.class && s.length() == 1) return s.charAt(0);
                if (boxed == BigDecimal.class) return new BigDecimal(s.trim());
                if (boxed == BigInteger.class) return new BigInteger(s.trim());
                if (target.isEnum()) return enumValue(target, s.trim());
                if (target == Class.class) return Class.forName(s.trim(), false, m.getDeclaringClass().getClassLoader());
            } catch (IllegalArgumentException | ClassNotFoundException e) {
                throw new TestSpec.SetupException("argument " + (i + 1) + " of " + m.getName() + "() cannot be converted to " + target.getSimpleName() + ": \"" + s + "\"");
            }
        }
        throw new TestSpec.SetupException("argument " + (i + 1) + " of " + m.getName() + "() is a " + v.getClass().getSimpleName() + ", which racelens cannot convert to "
                + target.getSimpleName() + " (it converts strings to numbers, booleans, characters, enums and classes, and widens numbers)");
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static Object enumValue(Class<?> type, String name) {
        return Enum.valueOf((Class) type, name);
    }

    private static Object widen(Object v, Class<?> to) {
        if (v instanceof Character) {
            char c = (Character) v;
            return to == Integer.class ? (Object) (int) c : to == Long.class ? (Object) (long) c : to == Double.class ? (Object) (double) c : to == Float.class ? (Object) (float) c : null;
        }
        Number n = (Number) v;
        boolean integral = v instanceof Byte || v instanceof Short || v instanceof Integer || v instanceof Long;
        int rank = v instanceof Byte ? 0 : v instanceof Short ? 1 : v instanceof Integer ? 2 : v instanceof Long ? 3 : v instanceof Float ? 4 : 5;
        if (to == Short.class && rank < 1) return n.shortValue();
        if (to == Integer.class && rank < 2) return n.intValue();
        if (to == Long.class && rank < 3 && integral) return n.longValue();
        if (to == Float.class && rank < 4) return n.floatValue();
        if (to == Double.class && rank < 5) return n.doubleValue();
        return null;
    }

    private static Class<?> boxed(Class<?> c) {
        if (!c.isPrimitive()) return c;
        if (c == int.class) return Integer.class;
        if (c == long.class) return Long.class;
        if (c == short.class) return Short.class;
        if (c == byte.class) return Byte.class;
        if (c == double.class) return Double.class;
        if (c == float.class) return Float.class;
        if (c == boolean.class) return Boolean.class;
        if (c == char.class) return Character.class;
        return Void.class;
    }
}
