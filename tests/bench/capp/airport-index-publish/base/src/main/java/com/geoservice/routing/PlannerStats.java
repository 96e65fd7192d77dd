package com.geoservice.routing;

import java.util.concurrent.locks.ReentrantReadWriteLock;

/** Planner statistics, read often by the monitoring endpoint, written per plan. */
public class PlannerStats {
    private final ReentrantReadWriteLock rw = new ReentrantReadWriteLock();
    private long plans;
    private long totalKm;
    private long longestKm;
    private volatile String lastRoute = "";

    public void planned(String route, long km) {
        rw.writeLock().lock();
        try {
            plans++;
            totalKm += km;
            if (km > longestKm) {
                longestKm = km;
            }
        } finally {
            rw.writeLock().unlock();
        }
        lastRoute = route;
    }

    public long plans() {
        rw.readLock().lock();
        try {
            return plans;
        } finally {
            rw.readLock().unlock();
        }
    }

    public long totalKm() {
        rw.readLock().lock();
        try {
            return totalKm;
        } finally {
            rw.readLock().unlock();
        }
    }

    public String lastRoute() {
        return lastRoute;
    }
}
