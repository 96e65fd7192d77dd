package racelens.agent.instrument;

import java.util.concurrent.Semaphore;

/**
 * Application code for {@link InstrumenterTest}: compiled with the tests, instrumented by the
 * test through {@link Instrumenter} and loaded by a loader of its own. One operation of each
 * kind the instrumenter rewrites; {@link #racyIncrement} is a lost update waiting to happen,
 * {@link #lockedIncrement} is not.
 */
public class Shared {
    public int count;
    private final Object lock = new Object();

    public void racyIncrement() {
        count++;
    }

    public synchronized void lockedIncrement() {
        count++;
    }

    public void waitForIt() throws InterruptedException {
        synchronized (lock) {
            lock.wait();
        }
    }

    public Semaphore newSemaphore() {
        return new Semaphore(1);
    }

    public long now() {
        return System.nanoTime();
    }

    public void startAndJoin(Thread t) throws InterruptedException {
        t.start();
        t.join();
    }
}
