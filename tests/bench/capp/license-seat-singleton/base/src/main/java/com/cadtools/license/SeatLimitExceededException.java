package com.cadtools.license;

/** All seats of a feature are checked out. */
public class SeatLimitExceededException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public SeatLimitExceededException(String feature, int limit) {
        super("all " + limit + " seats of " + feature + " are in use");
    }
}
