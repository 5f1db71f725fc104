package io.streamtrain.serve;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The model the server scores with now. A request {@linkplain #acquire leases} it for its whole
 * duration; {@link #replace} puts a new one in place at once and closes the old one only when its
 * last lease is released, so a switch never fails or cuts short a request that is already scoring.
 */
final class ModelSlot implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ModelSlot.class);

    /** A model with its count of holders: the slot itself plus every request using it. */
    static final class Lease implements AutoCloseable {
        final ServedModel model;
        private final AtomicInteger holders = new AtomicInteger(1);

        private Lease(ServedModel model) {
            this.model = model;
        }

        private boolean retain() {
            for (int n = holders.get(); n > 0; n = holders.get()) {
                if (holders.compareAndSet(n, n + 1)) {
                    return true;
                }
            }
            return false; // already closed: the caller reads the slot again
        }

        @Override
        public void close() {
            if (holders.decrementAndGet() == 0) {
                try {
                    model.close();
                    LOG.info("closed the model of {}", model.source());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } catch (RuntimeException e) {
                    LOG.warn("closing the model of {} failed", model.source(), e);
                }
            }
        }
    }

    private final AtomicReference<Lease> current;

    ModelSlot(ServedModel initial) {
        this.current = new AtomicReference<>(new Lease(initial));
    }

    /** The current model, held until the lease is closed. */
    Lease acquire() {
        while (true) {
            Lease lease = current.get();
            if (lease == null) {
                throw new IllegalStateException("the server is closed");
            }
            if (lease.retain()) {
                return lease;
            }
        }
    }

    /** The current model, for reads that need no lease (metrics, health). */
    ServedModel peek() {
        Lease lease = current.get();
        return lease == null ? null : lease.model;
    }

    /** Serves {@code next} from now on; the previous model closes once its requests are done. */
    void replace(ServedModel next) {
        Lease lease = new Lease(next);
        Lease previous;
        do {
            previous = current.get();
            if (previous == null) {
                lease.close();
                throw new IllegalStateException("the server is closed");
            }
        } while (!current.compareAndSet(previous, lease));
        previous.close();
    }

    @Override
    public void close() {
        Lease previous = current.getAndSet(null);
        if (previous != null) {
            previous.close();
        }
    }
}
