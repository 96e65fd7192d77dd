package com.newsfeed.tags;

import java.util.List;

/** An article as it arrives from the editorial system. */
public record Article(String id, String title, List<String> tags) {
}
