package racelens.rt;

/**
 * A scheduler that decides at each decision point of one execution, instead of a list of
 * choices: PCT ({@code pct=}), a random walk ({@code walk=}) or partial-order sampling
 * ({@code pos=}). The decisions it takes are reported as any others (D lines), so that the
 * controller can replay the schedule it produced.
 */
public abstract class Online {
    /** The RUN option's scheduler, or null when the option names none. */
    public static Online parse(String option) {
        if (option.startsWith("pct=")) {
            return Pct.parse(option.substring(4));
        }
        if (option.startsWith("walk=")) {
            return new Sampler(Long.parseLong(option.substring(5)), false);
        }
        if (option.startsWith("pos=")) {
            return new Sampler(Long.parseLong(option.substring(4)), true);
        }
        return null;
    }

    /** Thread {@code t} joined the execution. */
    abstract void created(TS t);

    /** A scheduling point of the running thread {@code s}, about to perform {@code site}. */
    abstract void point(TS s, int site, TS[] threads);

    /** The enabled thread to run next. */
    abstract TS pick(TS[] threads);
}
