package org.acme.broker;

/**
 * Receives the messages of a topic. Called on the subscription's delivery threads; with
 * more than one delivery thread, calls may overlap.
 */
@FunctionalInterface
public interface Subscriber {

    void onMessage(Message message);
}
