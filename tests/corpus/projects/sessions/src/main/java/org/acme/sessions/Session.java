package org.acme.sessions;

import java.util.HashMap;
import java.util.Map;

/**
 * A user's session. The attributes, the last access and the valid flag are guarded by the
 * session's monitor; request threads and the expiry reaper both use it.
 */
public final class Session {

    private final String id;
    private final String user;
    private final long createdAt;

    // guarded by this
    private final Map<String, Object> attributes = new HashMap<>();
    private long lastAccess;
    private long accessCount;
    private boolean valid = true;

    Session(String id, String user, long now) {
        this.id = id;
        this.user = user;
        this.createdAt = now;
        this.lastAccess = now;
    }

    public String id() {
        return id;
    }

    public String user() {
        return user;
    }

    public long createdAt() {
        return createdAt;
    }

    public synchronized Object getAttribute(String name) {
        return attributes.get(name);
    }

    public synchronized void setAttribute(String name, Object value) {
        if (!valid) {
            throw new IllegalStateException("session " + id + " was invalidated");
        }
        attributes.put(name, value);
    }

    /**
     * Records an access at {@code now}, unless the session was invalidated or has been idle
     * longer than {@code ttlMillis}; returns false then. Atomic with respect to
     * {@link #expireIfIdle}: either the access renews the session or the reaper expires it.
     */
    synchronized boolean touch(long now, long ttlMillis) {
        if (!valid || now - lastAccess > ttlMillis) {
            return false;
        }
        lastAccess = now;
        accessCount++;
        return true;
    }

    public synchronized boolean isValid(long now, long ttlMillis) {
        return valid && now - lastAccess <= ttlMillis;
    }

    /** Invalidates the session if it has been idle longer than {@code ttlMillis}; true if this call did. */
    synchronized boolean expireIfIdle(long now, long ttlMillis) {
        if (!valid || now - lastAccess <= ttlMillis) {
            return false;
        }
        valid = false;
        attributes.clear();
        return true;
    }

    /** Invalidates the session; true if it was valid. */
    synchronized boolean invalidate() {
        if (!valid) {
            return false;
        }
        valid = false;
        attributes.clear();
        return true;
    }

    public synchronized long lastAccess() {
        return lastAccess;
    }

    public synchronized long accessCount() {
        return accessCount;
    }
}
