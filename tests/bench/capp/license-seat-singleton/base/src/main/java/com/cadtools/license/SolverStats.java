package com.cadtools.license;

import java.util.concurrent.atomic.AtomicLong;

/** How much the solver did, for the license usage report. */
public class SolverStats {
    private final AtomicLong solves = new AtomicLong();
    private final AtomicLong iterations = new AtomicLong();
    private double worstResidual;

    public void solved(int iters, double residual) {
        solves.incrementAndGet();
        iterations.addAndGet(iters);
        synchronized (this) {
            if (residual > worstResidual) {
                worstResidual = residual;
            }
        }
    }

    public long solves() {
        return solves.get();
    }

    public long iterations() {
        return iterations.get();
    }

    public synchronized double worstResidual() {
        return worstResidual;
    }
}
