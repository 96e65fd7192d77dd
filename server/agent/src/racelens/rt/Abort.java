package racelens.rt;

/**
 * Thrown into a controlled thread to unwind it when its execution has ended (step bound,
 * divergence, deadlock, exit, teardown). Nobody is expected to catch it; the harness and the
 * uncaught-exception hook ignore it.
 */
public class Abort extends Error {
    private static final long serialVersionUID = 1L;

    public Abort(String why) {
        super(why, null, false, false);
    }
}
