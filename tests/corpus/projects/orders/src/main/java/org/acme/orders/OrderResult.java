package org.acme.orders;

/**
 * What became of an order. A worker fills it in and then completes the order's future
 * with it; whoever joins the future reads it afterwards. It is not changed after that.
 */
public final class OrderResult {

    private final long orderId;
    private Order.Status status;
    private long totalCents;
    private String message = "";

    public OrderResult(long orderId) {
        this.orderId = orderId;
    }

    /** The result of an order cancelled before a worker picked it up. */
    public static OrderResult cancelled(long orderId) {
        OrderResult result = new OrderResult(orderId);
        result.setStatus(Order.Status.CANCELLED);
        result.setMessage("cancelled by request");
        return result;
    }

    public long orderId() {
        return orderId;
    }

    public Order.Status status() {
        return status;
    }

    void setStatus(Order.Status status) {
        this.status = status;
    }

    public long totalCents() {
        return totalCents;
    }

    void setTotalCents(long totalCents) {
        this.totalCents = totalCents;
    }

    public String message() {
        return message;
    }

    void setMessage(String message) {
        this.message = message;
    }

    @Override
    public String toString() {
        return "OrderResult[" + orderId + " " + status + " " + totalCents + "c " + message + "]";
    }
}
