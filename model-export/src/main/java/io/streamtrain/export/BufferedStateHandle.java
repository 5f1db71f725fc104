package io.streamtrain.export;

import java.io.IOException;
import java.util.Optional;
import org.apache.flink.core.fs.FSDataInputStream;
import org.apache.flink.core.fs.Path;
import org.apache.flink.runtime.state.PhysicalStateHandleID;
import org.apache.flink.runtime.state.StreamStateHandle;

/**
 * A state file read through a buffer. Flink's canonical savepoint reader takes each entry's length
 * and bytes with small reads, and a local file's stream sends each of them to the kernel: unbuffered,
 * reading a savepoint cost a system call every few bytes. Seeks inside the buffer stay in it.
 */
final class BufferedStateHandle implements StreamStateHandle {
    private static final long serialVersionUID = 1L;
    private static final int BUFFER = 1 << 16;
    private final StreamStateHandle delegate;

    BufferedStateHandle(StreamStateHandle delegate) {
        this.delegate = delegate;
    }

    @Override
    public FSDataInputStream openInputStream() throws IOException {
        return new BufferedInput(delegate.openInputStream());
    }

    @Override
    public Optional<byte[]> asBytesIfInMemory() {
        return delegate.asBytesIfInMemory();
    }

    @Override
    public Optional<Path> maybeGetPath() {
        return delegate.maybeGetPath();
    }

    @Override
    public PhysicalStateHandleID getStreamStateHandleID() {
        return delegate.getStreamStateHandleID();
    }

    @Override
    public void discardState() {
        throw new UnsupportedOperationException("export only reads checkpoints");
    }

    @Override
    public long getStateSize() {
        return delegate.getStateSize();
    }

    private static final class BufferedInput extends FSDataInputStream {
        private final FSDataInputStream in;
        private final byte[] buffer = new byte[BUFFER];
        /** Position in the file of buffer[0]. */
        private long start;
        private int position;
        private int limit;

        BufferedInput(FSDataInputStream in) throws IOException {
            this.in = in;
            this.start = in.getPos();
        }

        private boolean fill() throws IOException {
            start += limit;
            position = 0;
            limit = Math.max(0, in.read(buffer, 0, buffer.length));
            return limit > 0;
        }

        @Override
        public int read() throws IOException {
            if (position >= limit && !fill()) {
                return -1;
            }
            return buffer[position++] & 0xFF;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (len == 0) {
                return 0;
            }
            if (position >= limit && !fill()) {
                return -1;
            }
            int n = Math.min(len, limit - position);
            System.arraycopy(buffer, position, b, off, n);
            position += n;
            return n;
        }

        @Override
        public void seek(long target) throws IOException {
            if (target >= start && target <= start + limit) {
                position = (int) (target - start);
                return;
            }
            in.seek(target);
            start = target;
            position = 0;
            limit = 0;
        }

        @Override
        public long getPos() {
            return start + position;
        }

        @Override
        public void close() throws IOException {
            in.close();
        }
    }
}
