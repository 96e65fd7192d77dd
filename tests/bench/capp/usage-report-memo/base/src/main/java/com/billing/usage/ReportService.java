package com.billing.usage;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The usage report of the period being closed. Building it takes the journal's events
 * and assigns the next report number, so it must happen once per period: every caller
 * gets the same report until {@link #closePeriod()}.
 */
public class ReportService {
    private final UsageJournal journal;
    private final ReportArchive archive;
    private final AtomicLong numbers = new AtomicLong();
    private UsageReport current;

    public ReportService(UsageJournal journal, ReportArchive archive) {
        this.journal = journal;
        this.archive = archive;
    }

    public synchronized UsageReport currentReport() {
        if (current == null) {
            current = build();
        }
        return current;
    }

    private UsageReport build() {
        Map<String, Long> totals = new TreeMap<>();
        int n = 0;
        for (UsageEvent e : journal.drain()) {
            totals.merge(e.customer() + "/" + e.metric(), e.quantity(), Long::sum);
            n++;
        }
        UsageReport r = new UsageReport(numbers.incrementAndGet(), Map.copyOf(totals), n);
        archive.store(r);
        return r;
    }

    /** Starts a new period: the next call builds a new report. */
    public synchronized void closePeriod() {
        current = null;
    }
}
