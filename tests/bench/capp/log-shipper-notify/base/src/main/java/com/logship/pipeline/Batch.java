package com.logship.pipeline;

import java.util.List;

/** Formatted log lines shipped together. */
public record Batch(long id, List<String> lines, int bytes) {
}
