package com.mailrelay.outbox;

/** A message ready to be handed to the mail server. */
public record Envelope(long id, String recipient, String subject, String body) {
    public String domain() {
        return recipient.substring(recipient.indexOf('@') + 1);
    }
}
