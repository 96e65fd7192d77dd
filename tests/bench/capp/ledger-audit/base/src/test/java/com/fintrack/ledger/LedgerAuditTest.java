package com.fintrack.ledger;

import static org.junit.Assert.assertEquals;

import java.util.List;
import org.junit.Test;

public class LedgerAuditTest {

    @Test
    public void auditDuringPaymentsSeesNoMoneyInFlight() throws Exception {
        TransactionJournal journal = new TransactionJournal();
        Ledger ledger = new Ledger(journal);
        ledger.open("alice", 100);
        ledger.open("bob", 100);
        ledger.open("carol", 100);
        ledger.open("fees", 0);
        PaymentProcessor payments = new PaymentProcessor(ledger, new FeePolicy(100, 1), new RiskMonitor(500), journal, "fees");
        Auditor auditor = new Auditor(ledger, journal);

        Thread processor = new Thread(() -> {
            payments.execute(new PaymentProcessor.Payment("p-1", "alice", "bob", 40));
            payments.execute(new PaymentProcessor.Payment("p-2", "bob", "carol", 25));
        });
        Thread audit = new Thread(() -> {
            auditor.reconcile();
            auditor.reconcile();
        });
        processor.start();
        audit.start();
        processor.join();
        audit.join();

        List<String> mismatches = auditor.mismatches();
        assertEquals("audits saw money in flight: " + mismatches, 0, mismatches.size());
        assertEquals(2, payments.executed());
        assertEquals(59, ledger.balanceOf("alice"));
        assertEquals(114, ledger.balanceOf("bob"));
        assertEquals(125, ledger.balanceOf("carol"));
        assertEquals(2, ledger.balanceOf("fees"));
        assertEquals(300, ledger.totalBalance());
    }
}
