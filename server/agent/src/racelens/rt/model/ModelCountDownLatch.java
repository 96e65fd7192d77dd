package racelens.rt.model;

import java.util.concurrent.TimeUnit;
import racelens.rt.Rt;
import racelens.rt.TS;

/** Replaces {@code new CountDownLatch(n)}: the count is the real one; {@code await} blocks in the model. */
public class ModelCountDownLatch extends java.util.concurrent.CountDownLatch {
    public ModelCountDownLatch(int count) {
        super(count);
    }

    @Override
    public void await() throws InterruptedException {
        TS s = Rt.me();
        if (s == null) {
            super.await();
            return;
        }
        Models.until(s, () -> getCount() == 0, this, "waiting on latch", false, 0, true);
    }

    @Override
    public boolean await(long timeout, TimeUnit unit) throws InterruptedException {
        TS s = Rt.me();
        if (s == null) {
            return super.await(timeout, unit);
        }
        return Models.until(s, () -> getCount() == 0, this, "waiting on latch", true, unit.toNanos(timeout), true);
    }

    @Override
    public void countDown() {
        super.countDown();
        Rt.changed();
    }
}
