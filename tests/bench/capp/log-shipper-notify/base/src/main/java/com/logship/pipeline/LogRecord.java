package com.logship.pipeline;

/** One log line as read from an application. Levels: 0 debug, 1 info, 2 warn, 3 error. */
public record LogRecord(int level, String source, String message) {
}
