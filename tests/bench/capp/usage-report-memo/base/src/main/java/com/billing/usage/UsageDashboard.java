package com.billing.usage;

/** The account managers' view: how much each customer used in the closing period. */
public class UsageDashboard {
    private final ReportService reports;
    private volatile String headline = "";
    private long shownReport;
    private int refreshes;

    public UsageDashboard(ReportService reports) {
        this.reports = reports;
    }

    public String refresh(String customer) {
        UsageReport report = reports.currentReport();
        String line = "report " + report.number() + ": " + customer + " made "
                + report.total(customer, "api-calls") + " API calls and stored "
                + report.total(customer, "storage-gb") + " GB";
        synchronized (this) {
            shownReport = report.number();
            refreshes++;
        }
        headline = line;
        return line;
    }

    public synchronized long shownReport() {
        return shownReport;
    }

    public String headline() {
        return headline;
    }
}
