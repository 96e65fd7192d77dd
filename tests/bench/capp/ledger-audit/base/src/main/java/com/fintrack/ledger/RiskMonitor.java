package com.fintrack.ledger;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;

/** Velocity checks: how much each account sent recently. Has its own lock. */
public class RiskMonitor {
    private final ReentrantLock lock = new ReentrantLock();
    private final Map<String, Long> sentByAccount = new HashMap<>();
    private final long limitPerAccount;
    private volatile int alerts;

    public RiskMonitor(long limitPerAccount) {
        this.limitPerAccount = limitPerAccount;
    }

    /** Records an outgoing amount; false when it would exceed the account's limit. */
    public boolean approve(String account, long amount) {
        lock.lock();
        try {
            long sent = sentByAccount.getOrDefault(account, 0L);
            if (sent + amount > limitPerAccount) {
                alerts++;
                return false;
            }
            sentByAccount.put(account, sent + amount);
            return true;
        } finally {
            lock.unlock();
        }
    }

    public long sentBy(String account) {
        lock.lock();
        try {
            return sentByAccount.getOrDefault(account, 0L);
        } finally {
            lock.unlock();
        }
    }

    public int alerts() {
        return alerts;
    }
}
