package com.dataplane.pool;

/** Data access for user profiles, one pooled connection per call. */
public class UserRepository {
    /** A user as the profile page needs it. */
    public record Profile(long id, int roles, int sessions) {
    }

    private final ConnectionPool pool;
    private final PoolMetrics metrics;

    public UserRepository(ConnectionPool pool, PoolMetrics metrics) {
        this.pool = pool;
        this.metrics = metrics;
    }

    public Profile load(long userId) throws InterruptedException {
        try (PooledConnection c = pool.acquire()) {
            int roles = c.execute("SELECT role FROM user_roles WHERE user_id = " + userId);
            metrics.query();
            int sessions = c.execute("SELECT id FROM sessions WHERE user_id = " + userId);
            metrics.query();
            return new Profile(userId, roles, sessions);
        }
    }
}
