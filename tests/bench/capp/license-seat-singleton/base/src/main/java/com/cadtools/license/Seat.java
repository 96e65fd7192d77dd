package com.cadtools.license;

/** A checked-out license seat. */
public record Seat(long id, String feature, String host) {
}
