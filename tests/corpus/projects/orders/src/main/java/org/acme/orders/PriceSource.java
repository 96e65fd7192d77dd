package org.acme.orders;

/**
 * Where prices come from: usually a remote pricing service, slow and safe to call from
 * several threads at once.
 */
@FunctionalInterface
public interface PriceSource {

    /**
     * Loads the current price of an item.
     *
     * @throws IllegalArgumentException when the item is not sold
     */
    Price load(String sku);
}
