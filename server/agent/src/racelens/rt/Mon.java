package racelens.rt;

import java.util.ArrayList;

/**
 * A model lock: owner and re-entrancy count, plus the wait set of {@code Object.wait} when it is
 * an object's monitor. Execution-specific state is reset lazily by epoch.
 */
public final class Mon extends Blocker {
    final Object obj;
    int epoch;
    public TS owner;
    public int holds;
    final ArrayList<TS> waitSet = new ArrayList<>(2);

    public Mon(Object obj) {
        this.obj = obj;
        this.epoch = Rt.epoch;
    }

    /** Reset execution-specific state left by an earlier execution. */
    public void fresh() {
        if (epoch != Rt.epoch) {
            epoch = Rt.epoch;
            owner = null;
            holds = 0;
            waitSet.clear();
        }
    }

    @Override
    public boolean ready(TS t) {
        fresh();
        return owner == null || owner == t || t.timedOut || (t.interruptible && t.interrupted);
    }

    @Override
    public String describe(TS t) {
        return "blocked on lock " + Lines.label(obj) + " held by " + (owner == null ? "-" : String.valueOf(owner.id));
    }
}
