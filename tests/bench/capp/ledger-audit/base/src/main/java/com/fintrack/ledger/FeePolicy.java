package com.fintrack.ledger;

/** Transfer fees, in basis points with a minimum; the rate can be changed at run time. */
public class FeePolicy {
    private volatile int basisPoints;
    private volatile long minimumFee;

    public FeePolicy(int basisPoints, long minimumFee) {
        this.basisPoints = basisPoints;
        this.minimumFee = minimumFee;
    }

    public long feeFor(long amount) {
        long fee = amount * basisPoints / 10_000;
        long min = minimumFee;
        return fee < min ? min : fee;
    }

    public void update(int basisPoints, long minimumFee) {
        this.basisPoints = basisPoints;
        this.minimumFee = minimumFee;
    }
}
