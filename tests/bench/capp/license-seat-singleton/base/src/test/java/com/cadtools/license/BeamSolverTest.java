package com.cadtools.license;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;

import org.junit.Test;

public class BeamSolverTest {

    @Test
    public void parallelSolvesShareOneSeat() throws Exception {
        LicenseServer server = new LicenseServer();
        server.offer("beam-solver", 1);
        Heartbeat heartbeat = new Heartbeat();
        LicenseClient license = new LicenseClient(server, heartbeat, "ws-042", "beam-solver");
        SolverStats stats = new SolverStats();
        BeamSolver solver = new BeamSolver(license, stats);
        Throwable[] errors = new Throwable[2];

        Thread floors = new Thread(() -> {
            try {
                solver.solve(new BeamSolver.Beam("floor-joist", 4.0, 12.0, 8_000));
                solver.solve(new BeamSolver.Beam("lintel", 2.4, 30.0, 5_000));
                solver.solve(new BeamSolver.Beam("stair-stringer", 3.0, 6.0, 4_500));
                solver.solve(new BeamSolver.Beam("header", 1.2, 40.0, 3_600));
            } catch (Throwable t) {
                errors[0] = t;
            }
        });
        Thread roof = new Thread(() -> {
            try {
                solver.solve(new BeamSolver.Beam("ridge", 6.0, 8.0, 20_000));
                heartbeat.beat(1_000);
                solver.solve(new BeamSolver.Beam("rafter", 5.0, 4.8, 10_000));
                heartbeat.beat(2_000);
                solver.solve(new BeamSolver.Beam("purlin", 4.0, 3.0, 4_000));
            } catch (Throwable t) {
                errors[1] = t;
            }
        });
        floors.start();
        roof.start();
        floors.join();
        roof.join();

        assertNull("floor solves failed: " + errors[0], errors[0]);
        assertNull("roof solve failed: " + errors[1], errors[1]);
        assertEquals(1, server.inUse("beam-solver"));
        assertEquals(0, server.denials());
        assertEquals(1, heartbeat.registered());
        assertEquals(7, stats.solves());
        assertEquals(0.4, solver.result("header"), 1e-9);
        assertEquals(1.0, solver.result("purlin"), 1e-9);
        assertEquals(1.25, solver.result("rafter"), 1e-9);
        assertEquals(0.75, solver.result("stair-stringer"), 1e-9);
        assertEquals(2.0, solver.result("floor-joist"), 1e-9);
        assertEquals(1.728, solver.result("lintel"), 1e-9);
        assertEquals(1.8, solver.result("ridge"), 1e-9);
    }
}
