package com.geoservice.routing;

/** An airport: IATA code, city, position in degrees, UTC offset in hours. */
public record Airport(String code, String city, double lat, double lon, int utcOffset) {
}
