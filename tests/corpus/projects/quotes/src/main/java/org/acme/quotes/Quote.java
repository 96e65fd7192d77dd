package org.acme.quotes;

/** One price update for a symbol; immutable. */
public final class Quote {
    private final String symbol;
    private final long bidMicros;
    private final long askMicros;
    private final long sequence;
    /** Cached by hashCode(); quotes are keys of maps read by every feed thread. */
    private int hash;

    public Quote(String symbol, long bidMicros, long askMicros, long sequence) {
        this.symbol = symbol;
        this.bidMicros = bidMicros;
        this.askMicros = askMicros;
        this.sequence = sequence;
    }

    public String symbol() {
        return symbol;
    }

    public long bidMicros() {
        return bidMicros;
    }

    public long askMicros() {
        return askMicros;
    }

    public long midMicros() {
        return (bidMicros + askMicros) / 2;
    }

    public long sequence() {
        return sequence;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof Quote)) {
            return false;
        }
        Quote q = (Quote) o;
        return symbol.equals(q.symbol) && bidMicros == q.bidMicros && askMicros == q.askMicros;
    }

    @Override
    public int hashCode() {
        int h = hash;
        if (h == 0) {
            h = symbol.hashCode();
            h = 31 * h + Long.hashCode(bidMicros);
            h = 31 * h + Long.hashCode(askMicros);
            hash = h;
        }
        return h;
    }
}
