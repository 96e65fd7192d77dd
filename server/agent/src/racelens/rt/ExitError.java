package racelens.rt;

/** Thrown by the replacement of {@code System.exit}: ends the execution with outcome {@code exit}. */
public final class ExitError extends Abort {
    private static final long serialVersionUID = 1L;
    public final int status;

    public ExitError(int status) {
        super("System.exit(" + status + ") intercepted by racelens");
        this.status = status;
    }
}
