package com.fintrack.ledger;

import java.util.ArrayList;
import java.util.List;

/** Append-only journal of everything the ledger did, numbered in order. */
public class TransactionJournal {
    /** One journal line. */
    public record Entry(long sequence, String kind, String detail, long amount) {
    }

    private final List<Entry> entries = new ArrayList<>();
    private long nextSequence = 1;

    public synchronized long append(String kind, String detail, long amount) {
        long seq = nextSequence++;
        entries.add(new Entry(seq, kind, detail, amount));
        return seq;
    }

    public synchronized int size() {
        return entries.size();
    }

    public synchronized List<Entry> since(long sequence) {
        List<Entry> out = new ArrayList<>();
        for (Entry e : entries) {
            if (e.sequence() > sequence) {
                out.add(e);
            }
        }
        return out;
    }

    public synchronized long count(String kind) {
        long n = 0;
        for (Entry e : entries) {
            if (e.kind().equals(kind)) {
                n++;
            }
        }
        return n;
    }
}
