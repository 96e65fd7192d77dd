package org.lit;

import static org.junit.Assert.assertEquals;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * A work-stealing deque in the style of Chase and Lev: the owner pushes and pops at the
 * bottom, thieves steal at the top with a compare-and-set. The bug: the owner's pop does not
 * race the thieves for the last task with a compare-and-set of its own, so the last task can
 * be both popped and stolen, and runs twice.
 */
public class WorkStealingTest {
    static final class Deque {
        private final int[] tasks = new int[16];
        private final AtomicInteger top = new AtomicInteger();
        private volatile int bottom;

        void push(int task) {
            tasks[bottom] = task;
            bottom = bottom + 1;
        }

        int pop() {
            int b = bottom - 1;
            bottom = b;
            int t = top.get();
            if (t > b) {
                bottom = t;
                return -1;
            }
            return tasks[b]; // the last task (t == b) is not claimed with a compare-and-set
        }

        int steal() {
            int t = top.get();
            if (t >= bottom) {
                return -1;
            }
            int task = tasks[t];
            return top.compareAndSet(t, t + 1) ? task : -1;
        }
    }

    private void run(int thieves, int tasks) throws InterruptedException {
        Deque deque = new Deque();
        AtomicIntegerArray runs = new AtomicIntegerArray(tasks);
        for (int i = 0; i < tasks; i++) {
            deque.push(i);
        }
        Thread[] threads = new Thread[thieves];
        for (int i = 0; i < thieves; i++) {
            threads[i] = new Thread(() -> {
                int task = deque.steal();
                if (task >= 0) {
                    runs.incrementAndGet(task);
                }
            });
            threads[i].start();
        }
        for (int task; (task = deque.pop()) >= 0; ) {
            runs.incrementAndGet(task);
        }
        for (Thread t : threads) {
            t.join();
        }
        for (int i = 0; i < tasks; i++) {
            assertEquals("task " + i + " ran once", 1, runs.get(i));
        }
    }

    @org.junit.Test
    public void twoThievesThreeTasks() throws InterruptedException {
        run(2, 3);
    }

    @org.junit.Test
    public void tenThievesTwelveTasks() throws InterruptedException {
        run(10, 12);
    }
}
