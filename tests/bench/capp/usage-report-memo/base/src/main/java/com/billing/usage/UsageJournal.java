package com.billing.usage;

import java.util.ArrayList;
import java.util.List;

/** Usage events of the open billing period, until a report takes them. */
public class UsageJournal {
    private final List<UsageEvent> events = new ArrayList<>();
    private long recorded;

    public synchronized void record(UsageEvent e) {
        if (e.quantity() <= 0) {
            throw new IllegalArgumentException("quantity " + e.quantity());
        }
        events.add(e);
        recorded++;
    }

    /** Takes all events recorded so far. */
    public synchronized List<UsageEvent> drain() {
        List<UsageEvent> out = new ArrayList<>(events);
        events.clear();
        return out;
    }

    public synchronized int pending() {
        return events.size();
    }

    public synchronized long recorded() {
        return recorded;
    }
}
