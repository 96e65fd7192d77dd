package org.acme.quotes;

/** One price update for a symbol; immutable. */
public final class Quote {
    private final String symbol;
    private final long bidMicros;
    private final long askMicros;
    private final long sequence;

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
}
