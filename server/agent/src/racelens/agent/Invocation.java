package racelens.agent;

import java.util.List;

/**
 * One invocation of a test that JUnit runs more than once: a JUnit 5 {@code @ParameterizedTest}
 * with one set of arguments, a repetition of a {@code @RepeatedTest}, or a JUnit 4 test of a
 * {@code @RunWith(Parameterized.class)} class with one parameter set. Named as JUnit numbers
 * them: {@code method[1]}, {@code method[2]}, ... for JUnit 5, {@code method[0]}, ... for JUnit 4's
 * {@code Parameterized}.
 *
 * <p>The arguments are made again for every execution ({@link #arguments()}): a factory method or
 * a {@code @Parameters} method runs in the execution, as JUnit runs it before the test, so that an
 * argument the test changes starts fresh each time and its allocation belongs to the schedule.
 */
final class Invocation {
    /** Where an invocation's arguments come from: all of a source's sets, made anew. */
    interface Source {
        List<Object[]> all() throws Throwable;
    }

    final int index;
    /** What JUnit shows for it: the arguments ({@code 5, "x"}) or {@code repetition 2 of 3}. */
    final String display;
    private final Source source;
    /** Which of the source's sets is this invocation's. */
    private final int position;
    /** A repeated test's repetition and their number (1-based); 0 otherwise. */
    final int repetition;
    final int repetitions;

    Invocation(int index, String display, Source source, int position, int repetition, int repetitions) {
        this.index = index;
        this.display = display;
        this.source = source;
        this.position = position;
        this.repetition = repetition;
        this.repetitions = repetitions;
    }

    /** This invocation's arguments, made again (empty for a repetition). */
    Object[] arguments() throws Throwable {
        if (source == null) {
            return new Object[0];
        }
        List<Object[]> all = source.all();
        if (position >= all.size()) {
            throw new IllegalStateException("racelens: the arguments of invocation [" + index + "] are gone: the source gave " + all.size()
                    + " sets this time (it must give the same ones in every execution)");
        }
        return all.get(position);
    }
}
