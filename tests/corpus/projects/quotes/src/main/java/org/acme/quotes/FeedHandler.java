package org.acme.quotes;

import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * Feed threads decode updates and publish them; a risk thread values the position on
 * every update it sees; the engine thread matches sells against the book.
 */
public final class FeedHandler {
    private final QuoteBoard board = new QuoteBoard();
    private final Position position;
    private final OrderBook book = new OrderBook();
    private final BlockingQueue<Quote> riskQueue = new LinkedBlockingQueue<>();
    private volatile boolean running = true;

    public FeedHandler(String symbol) {
        this.position = new Position(symbol);
    }

    public void start(int feeds) {
        for (int i = 0; i < feeds; i++) {
            final int feed = i;
            new Thread(() -> decodeLoop(feed), "feed-" + i).start();
        }
        new Thread(this::riskLoop, "risk").start();
        new Thread(this::engineLoop, "engine").start();
    }

    private void decodeLoop(int feed) {
        long seq = 0;
        while (running) {
            Quote q = new Quote(position.symbol(), 100_000_000L + feed, 100_010_000L + feed, seq++);
            if (board.publish(q)) {
                riskQueue.offer(q);
            }
            book.add(q.bidMicros(), 100);
        }
    }

    private void riskLoop() {
        while (running) {
            try {
                Quote q = riskQueue.take();
                long value = position.marketValueMicros(q);
                long pnl = position.unrealizedMicros(q);
                if (Math.abs(pnl) > value / 10) {
                    System.out.println("risk: " + position.symbol() + " pnl " + pnl);
                }
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private void engineLoop() {
        while (running) {
            long filled = book.sell(50);
            if (filled > 0) {
                Quote q = board.latest(position.symbol());
                position.fill(-filled, q == null ? 0 : q.bidMicros());
            }
        }
    }

    public String status() {
        List<Quote> all = board.snapshot();
        return all.size() + " quotes; " + board.describe() + "; " + book.describe() + "; depth " + FeedConfig.get().depth();
    }

    public void stop() {
        running = false;
    }
}
