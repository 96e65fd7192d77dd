package com.cadtools.license;

import java.util.concurrent.ConcurrentHashMap;

/**
 * The licensed feature: deflection of a simply supported beam under a point load,
 * iterated (as the real solver does for non-linear materials) to a tolerance.
 */
public class BeamSolver {
    /** A beam: length (m), load (kN) at mid-span, stiffness EI (kN m^2). */
    public record Beam(String name, double length, double load, double stiffness) {
    }

    private final LicenseClient license;
    private final SolverStats stats;
    private final ConcurrentHashMap<String, Double> results = new ConcurrentHashMap<>();
    private volatile double tolerance = 1e-9;

    public BeamSolver(LicenseClient license, SolverStats stats) {
        this.license = license;
        this.stats = stats;
    }

    /** Mid-span deflection in millimetres. */
    public double solve(Beam beam) {
        license.seat();
        double exact = beam.load() * Math.pow(beam.length(), 3) / (48 * beam.stiffness());
        double x = 0;
        int iters = 0;
        double tol = tolerance;
        while (Math.abs(exact - x) > tol && iters < 4) {
            x = x + (exact - x) * 0.999;
            iters++;
        }
        double mm = Math.round(x * 1_000_000) / 1000.0;
        results.put(beam.name(), mm);
        stats.solved(iters, Math.abs(exact - x));
        return mm;
    }

    public Double result(String beam) {
        return results.get(beam);
    }

    public void setTolerance(double t) {
        tolerance = t;
    }
}
