package org.acme.orders;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Accepts orders and fulfils them on a pool of worker threads: reserve stock for every
 * line, price the order, ship it, and complete the order's future with the result.
 *
 * <p>{@link #submit} and {@link #close} are ordered by the {@code admission} lock: once
 * {@code close} has stopped admission, no order enters the queue, so the workers can
 * finish the queue and stop.
 */
public final class FulfilmentService implements Inventory.LowStockListener, AutoCloseable {

    private static final Logger LOG = Logger.getLogger(FulfilmentService.class.getName());
    private static final long POLL_MILLIS = 100;

    private final Inventory inventory;
    private final PriceCache prices;
    private final AuditLog audit;
    private final int workerCount;
    private final BlockingQueue<Order> incoming;
    private final ConcurrentMap<Long, Order> inFlight = new ConcurrentHashMap<>();
    private final ExecutorService workers;
    private final CountDownLatch workersDone;
    private final ReadWriteLock admission = new ReentrantReadWriteLock();
    private final AtomicLong shipped = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final AtomicLong rejected = new AtomicLong();
    private final Set<String> lowStock = new TreeSet<>();
    private volatile boolean accepting = true;
    private boolean started;

    public FulfilmentService(Inventory inventory, PriceCache prices, AuditLog audit, int workerCount, int queueCapacity) {
        this.inventory = inventory;
        this.prices = prices;
        this.audit = audit;
        this.workerCount = workerCount;
        this.incoming = new ArrayBlockingQueue<>(queueCapacity);
        this.workers = Executors.newFixedThreadPool(workerCount, task -> {
            Thread t = new Thread(task, "fulfilment-worker");
            t.setDaemon(true);
            return t;
        });
        this.workersDone = new CountDownLatch(workerCount);
    }

    /** Starts the workers. */
    public synchronized void start() {
        if (started) {
            throw new IllegalStateException("already started");
        }
        started = true;
        inventory.setLowStockListener(this);
        for (int i = 0; i < workerCount; i++) {
            workers.execute(this::workLoop);
        }
        LOG.info(() -> "fulfilment started with " + workerCount + " workers");
    }

    /**
     * Queues an order.
     *
     * @return false when the service is closing or the queue is full
     * @throws IllegalArgumentException when an order with the same id is in flight
     */
    public boolean submit(Order order) {
        admission.readLock().lock();
        try {
            if (!accepting) {
                rejected.incrementAndGet();
                return false;
            }
            if (inFlight.putIfAbsent(order.id(), order) != null) {
                throw new IllegalArgumentException("order " + order.id() + " is already in flight");
            }
            if (!incoming.offer(order)) {
                inFlight.remove(order.id(), order);
                rejected.incrementAndGet();
                return false;
            }
        } finally {
            admission.readLock().unlock();
        }
        audit.record("accepted " + order);
        return true;
    }

    /**
     * Cancels an order that no worker has picked up yet.
     *
     * @return false when the order is unknown or already being processed
     */
    public boolean cancel(long orderId) {
        Order order = inFlight.get(orderId);
        if (order == null || !order.transition(Order.Status.NEW, Order.Status.CANCELLED)) {
            return false;
        }
        inFlight.remove(orderId, order);
        // A worker may have taken it off the queue already; it will see CANCELLED and skip it.
        incoming.remove(order);
        audit.record("cancelled " + order);
        order.completion().complete(OrderResult.cancelled(orderId));
        return true;
    }

    private void workLoop() {
        try {
            while (accepting || !incoming.isEmpty()) {
                Order order = incoming.poll(POLL_MILLIS, TimeUnit.MILLISECONDS);
                if (order == null) {
                    continue;
                }
                try {
                    process(order);
                } catch (RuntimeException e) {
                    LOG.log(Level.SEVERE, "could not process " + order, e);
                    order.completion().completeExceptionally(e);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            workersDone.countDown();
        }
    }

    private void process(Order order) {
        if (!order.transition(Order.Status.NEW, Order.Status.RESERVED)) {
            LOG.fine(() -> order + " was cancelled before processing");
            return;
        }
        OrderResult result = new OrderResult(order.id());
        List<OrderLine> held = new ArrayList<>();
        try {
            for (OrderLine line : order.lines()) {
                if (!inventory.reserve(line.sku(), line.quantity())) {
                    throw new OutOfStockException(line);
                }
                held.add(line);
            }
            for (OrderLine line : held) {
                inventory.commit(line.sku(), line.quantity());
            }
            order.setStatus(Order.Status.SHIPPED);
            result.setStatus(Order.Status.SHIPPED);
            long total = 0;
            for (OrderLine line : order.lines()) {
                total += prices.priceOf(line.sku()).centsFor(line.quantity());
            }
            result.setTotalCents(total);
            result.setMessage("shipped from " + inventory.warehouse());
            order.completion().complete(result);
            shipped.incrementAndGet();
            audit.record("shipped " + order + " for " + total + "c");
        } catch (OutOfStockException e) {
            for (OrderLine line : held) {
                inventory.release(line.sku(), line.quantity());
            }
            order.setStatus(Order.Status.FAILED);
            result.setStatus(Order.Status.FAILED);
            result.setMessage(e.getMessage());
            order.completion().complete(result);
            failed.incrementAndGet();
            audit.record("failed " + order + ": " + e.getMessage());
        } finally {
            inFlight.remove(order.id(), order);
        }
    }

    @Override
    public synchronized void onLowStock(String warehouse, String sku, int free) {
        if (lowStock.add(sku)) {
            LOG.warning(() -> warehouse + " is low on " + sku + ": " + free + " left");
        }
    }

    /** A one-line summary for the operations page. */
    public synchronized String statusReport() {
        StringBuilder report = new StringBuilder();
        report.append("shipped=").append(shipped.get());
        report.append(" failed=").append(failed.get());
        report.append(" rejected=").append(rejected.get());
        report.append(" queued=").append(incoming.size());
        report.append(" reservations=").append(inventory.reservationCount());
        report.append(" stock=").append(inventory.snapshot());
        if (!lowStock.isEmpty()) {
            report.append(" low=").append(lowStock);
        }
        return report.toString();
    }

    /**
     * Stops admission, lets the workers finish the queue (ten seconds at most), and fails
     * whatever they left.
     */
    @Override
    public void close() throws InterruptedException {
        admission.writeLock().lock();
        try {
            accepting = false;
        } finally {
            admission.writeLock().unlock();
        }
        boolean wasStarted;
        synchronized (this) {
            wasStarted = started;
        }
        if (wasStarted && !workersDone.await(10, TimeUnit.SECONDS)) {
            LOG.warning("fulfilment workers did not finish within ten seconds");
        }
        workers.shutdownNow();
        while (!incoming.isEmpty()) {
            Order left = incoming.poll();
            if (left != null) {
                failUnprocessed(left);
            }
        }
    }

    private void failUnprocessed(Order order) {
        if (order.transition(Order.Status.NEW, Order.Status.FAILED)) {
            OrderResult result = new OrderResult(order.id());
            result.setStatus(Order.Status.FAILED);
            result.setMessage("service closed before the order was processed");
            order.completion().complete(result);
            inFlight.remove(order.id(), order);
        }
    }

    /** No stock for one line of an order. */
    private static final class OutOfStockException extends Exception {
        private static final long serialVersionUID = 1L;

        OutOfStockException(OrderLine line) {
            super("out of stock: " + line.quantity() + " x " + line.sku());
        }
    }
}
