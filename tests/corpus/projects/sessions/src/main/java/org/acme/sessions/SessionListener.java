package org.acme.sessions;

/** Told about sessions that are created and destroyed; called with no lock of the store held. */
public interface SessionListener {

    void sessionCreated(Session session);

    void sessionDestroyed(Session session, String reason);
}
