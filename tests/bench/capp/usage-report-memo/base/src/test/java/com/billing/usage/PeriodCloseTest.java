package com.billing.usage;

import static org.junit.Assert.assertEquals;

import java.util.Map;
import org.junit.Test;

public class PeriodCloseTest {

    @Test
    public void invoicesAndDashboardShareOneReport() throws Exception {
        UsageJournal journal = new UsageJournal();
        journal.record(new UsageEvent("acme", "api-calls", 1200));
        journal.record(new UsageEvent("acme", "storage-gb", 40));
        journal.record(new UsageEvent("globex", "api-calls", 300));
        ReportArchive archive = new ReportArchive();
        ReportService reports = new ReportService(journal, archive);
        PriceBook prices = new PriceBook();
        prices.price("api-calls", 50);
        prices.price("storage-gb", 20_000);
        prices.discount("acme", 10);
        InvoiceGenerator invoices = new InvoiceGenerator(reports, prices);
        UsageDashboard dashboard = new UsageDashboard(reports);
        InvoiceGenerator.Invoices[] issued = new InvoiceGenerator.Invoices[2];
        String[] shown = new String[3];

        Thread billingRun = new Thread(() -> {
            issued[0] = invoices.generate();
            issued[1] = invoices.generate(); // the audit re-run must reproduce the invoices
        });
        Thread accountManager = new Thread(() -> {
            shown[0] = dashboard.refresh("acme");
            shown[1] = dashboard.refresh("globex");
            shown[2] = dashboard.refresh("initech");
        });
        billingRun.start();
        accountManager.start();
        billingRun.join();
        accountManager.join();

        assertEquals(1, archive.size());
        assertEquals(1, issued[0].reportNumber());
        assertEquals(Map.of("acme", 774_000L, "globex", 15_000L), issued[0].amountByCustomer());
        assertEquals(issued[0], issued[1]);
        assertEquals("report 1: acme made 1200 API calls and stored 40 GB", shown[0]);
        assertEquals("report 1: globex made 300 API calls and stored 0 GB", shown[1]);
        assertEquals("report 1: initech made 0 API calls and stored 0 GB", shown[2]);
        assertEquals(1, dashboard.shownReport());
        assertEquals(0, journal.pending());
    }
}
