package com.eventbus.topics;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/** Administrative events of the bus (topics created, subscriptions), for compliance. */
public class AuditTrail {
    private final ReentrantLock lock = new ReentrantLock();
    private final List<String> events = new ArrayList<>();

    public void record(String event) {
        lock.lock();
        try {
            events.add(event);
        } finally {
            lock.unlock();
        }
    }

    public long count(String prefix) {
        lock.lock();
        try {
            return events.stream().filter(e -> e.startsWith(prefix)).count();
        } finally {
            lock.unlock();
        }
    }
}
