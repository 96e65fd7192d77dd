package com.billing.usage;

import java.util.Map;
import java.util.TreeMap;

/** Turns the period's usage report into an amount per customer. */
public class InvoiceGenerator {
    /** The invoices of one report. */
    public record Invoices(long reportNumber, Map<String, Long> amountByCustomer) {
    }

    private final ReportService reports;
    private final PriceBook prices;
    private int runs;

    public InvoiceGenerator(ReportService reports, PriceBook prices) {
        this.reports = reports;
        this.prices = prices;
    }

    public Invoices generate() {
        UsageReport report = reports.currentReport();
        Map<String, Long> amounts = new TreeMap<>();
        for (Map.Entry<String, Long> e : new TreeMap<>(report.totals()).entrySet()) {
            String[] key = e.getKey().split("/");
            amounts.merge(key[0], prices.charge(key[0], key[1], e.getValue()), Long::sum);
        }
        synchronized (this) {
            runs++;
        }
        return new Invoices(report.number(), amounts);
    }

    public synchronized int runs() {
        return runs;
    }
}
