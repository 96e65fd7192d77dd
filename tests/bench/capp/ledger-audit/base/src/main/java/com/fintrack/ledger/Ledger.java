package com.fintrack.ledger;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The accounts and their balances. Money only moves between accounts: the sum of all
 * balances changes only when accounts are opened. All balances are guarded by this
 * object's monitor.
 */
public class Ledger {
    private final Map<String, Account> accounts = new LinkedHashMap<>();
    private final TransactionJournal journal;
    private long openedTotal;

    public Ledger(TransactionJournal journal) {
        this.journal = journal;
    }

    public void open(String id, long openingBalance) {
        synchronized (this) {
            if (accounts.containsKey(id)) {
                throw new IllegalStateException("account " + id + " exists");
            }
            accounts.put(id, new Account(id, openingBalance));
            openedTotal += openingBalance;
        }
        journal.append("OPEN", id, openingBalance);
    }

    private synchronized Account account(String id) {
        Account a = accounts.get(id);
        if (a == null) {
            throw new IllegalArgumentException("no account " + id);
        }
        return a;
    }

    /** Moves {@code amount} from one account to another; false if funds are insufficient. */
    public boolean transfer(String from, String to, long amount, String memo) {
        if (amount <= 0) {
            throw new IllegalArgumentException("amount " + amount);
        }
        Account src = account(from);
        Account dst = account(to);
        boolean done;
        synchronized (this) {
            if (src.frozen || src.balance < amount) {
                done = false;
            } else {
                src.balance -= amount;
                src.version++;
                dst.balance += amount;
                dst.version++;
                done = true;
            }
        }
        journal.append(done ? "TRANSFER" : "DECLINED", from + "->" + to + " " + memo, amount);
        return done;
    }

    public synchronized void freeze(String id) {
        account(id).frozen = true;
    }

    public synchronized long balanceOf(String id) {
        return account(id).balance;
    }

    /** The sum of all balances, as one consistent snapshot. */
    public synchronized long totalBalance() {
        long sum = 0;
        for (Account a : accounts.values()) {
            sum += a.balance;
        }
        return sum;
    }

    public synchronized long openedTotal() {
        return openedTotal;
    }
}
