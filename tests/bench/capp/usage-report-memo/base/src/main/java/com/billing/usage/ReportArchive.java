package com.billing.usage;

import java.util.ArrayList;
import java.util.List;

/** Every report ever issued; auditors check that numbers have no gaps and no duplicates. */
public class ReportArchive {
    private final List<UsageReport> reports = new ArrayList<>();

    public synchronized void store(UsageReport r) {
        reports.add(r);
    }

    public synchronized int size() {
        return reports.size();
    }

    public synchronized UsageReport last() {
        return reports.isEmpty() ? null : reports.get(reports.size() - 1);
    }
}
