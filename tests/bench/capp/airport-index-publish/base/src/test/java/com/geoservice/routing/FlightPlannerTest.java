package com.geoservice.routing;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;

import java.util.List;
import org.junit.Test;

public class FlightPlannerTest {

    @Test
    public void firstQueriesFromTwoThreadsSeeTheWholeDirectory() throws Exception {
        AirportSource source = new AirportSource(List.of(
                new Airport("LHR", "London", 51.47, -0.4543, 0),
                new Airport("JFK", "New York", 40.6413, -73.7781, -5),
                new Airport("CDG", "Paris", 49.0097, 2.5479, 1),
                new Airport("NRT", "Tokyo", 35.772, 140.3929, 9)));
        AirportDirectory directory = new AirportDirectory(source);
        PlannerStats stats = new PlannerStats();
        FlightPlanner planner = new FlightPlanner(directory, stats);
        FlightPlanner.Plan[] plans = new FlightPlanner.Plan[2];
        Throwable[] errors = new Throwable[2];

        Thread transatlantic = new Thread(() -> {
            try {
                plans[0] = planner.plan("LHR", "JFK", 9);
            } catch (Throwable t) {
                errors[0] = t;
            }
        });
        Thread europe = new Thread(() -> {
            try {
                plans[1] = planner.plan("CDG", "LHR", 7);
            } catch (Throwable t) {
                errors[1] = t;
            }
        });
        transatlantic.start();
        europe.start();
        transatlantic.join();
        europe.join();

        assertNull("LHR-JFK failed: " + errors[0], errors[0]);
        assertNull("CDG-LHR failed: " + errors[1], errors[1]);
        assertEquals(5540, plans[0].km());
        assertEquals(347, plans[1].km());
        assertEquals(1, directory.indexBuilds());
        assertEquals(1, source.loads());
        assertEquals(2, stats.plans());
    }
}
