package com.fintrack.ledger;

/** A customer account. Its mutable fields are guarded by the {@link Ledger}'s monitor. */
final class Account {
    final String id;
    long balance;
    long version;
    boolean frozen;

    Account(String id, long openingBalance) {
        this.id = id;
        this.balance = openingBalance;
    }
}
