package org.acme.orders;

import java.util.Objects;

/**
 * One line of an order: a stock-keeping unit and how many of it.
 *
 * @param sku the item
 * @param quantity how many units, at least one
 */
public record OrderLine(String sku, int quantity) {

    public OrderLine {
        Objects.requireNonNull(sku, "sku");
        if (quantity <= 0) {
            throw new IllegalArgumentException("quantity must be positive: " + quantity);
        }
    }
}
