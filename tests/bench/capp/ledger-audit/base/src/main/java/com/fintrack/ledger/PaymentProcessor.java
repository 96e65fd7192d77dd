package com.fintrack.ledger;

/** Executes payment orders: risk check, fee, the transfer itself, then the fee transfer. */
public class PaymentProcessor {
    /** A payment order from a customer. */
    public record Payment(String id, String from, String to, long amount) {
    }

    private final Ledger ledger;
    private final FeePolicy fees;
    private final RiskMonitor risk;
    private final TransactionJournal journal;
    private final String feeAccount;
    private int executed;
    private int rejected;

    public PaymentProcessor(Ledger ledger, FeePolicy fees, RiskMonitor risk, TransactionJournal journal, String feeAccount) {
        this.ledger = ledger;
        this.fees = fees;
        this.risk = risk;
        this.journal = journal;
        this.feeAccount = feeAccount;
    }

    public boolean execute(Payment p) {
        long fee = fees.feeFor(p.amount());
        if (!risk.approve(p.from(), p.amount() + fee)) {
            journal.append("RISK", p.id(), p.amount());
            countRejected();
            return false;
        }
        if (!ledger.transfer(p.from(), p.to(), p.amount(), p.id())) {
            countRejected();
            return false;
        }
        if (fee > 0) {
            ledger.transfer(p.from(), feeAccount, fee, p.id() + "/fee");
        }
        synchronized (this) {
            executed++;
        }
        return true;
    }

    private synchronized void countRejected() {
        rejected++;
    }

    public synchronized int executed() {
        return executed;
    }

    public synchronized int rejected() {
        return rejected;
    }
}
