package com.fintrack.ledger;

import java.util.ArrayList;
import java.util.List;

/**
 * Periodic reconciliation: the sum of balances must equal what was deposited when the
 * accounts were opened. Every run is journaled; mismatches are kept for investigation.
 */
public class Auditor {
    private final Ledger ledger;
    private final TransactionJournal journal;
    private final List<String> mismatches = new ArrayList<>();
    private long lastSeenSequence;
    private int runs;

    public Auditor(Ledger ledger, TransactionJournal journal) {
        this.ledger = ledger;
        this.journal = journal;
    }

    public boolean reconcile() {
        int activity = journal.since(lastSeenSequence).size();
        long expected = ledger.openedTotal();
        long actual = ledger.totalBalance();
        boolean balanced = expected == actual;
        long seq = journal.append(balanced ? "AUDIT-OK" : "AUDIT-MISMATCH", activity + " new entries", actual);
        synchronized (this) {
            runs++;
            lastSeenSequence = seq;
            if (!balanced) {
                mismatches.add("expected " + expected + " but found " + actual);
            }
        }
        return balanced;
    }

    public synchronized List<String> mismatches() {
        return new ArrayList<>(mismatches);
    }

    public synchronized int runs() {
        return runs;
    }
}
