package com.eventbus.topics;

/** A service that wants the messages of a topic, reached at {@code endpoint}. */
public record Subscriber(String id, String endpoint) {
}
