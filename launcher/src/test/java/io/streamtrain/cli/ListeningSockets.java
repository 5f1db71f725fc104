package io.streamtrain.cli;

import java.io.IOException;
import java.math.BigInteger;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The TCP sockets this JVM listens on, from Linux's {@code /proc/net/tcp} and {@code /proc/net/tcp6}
 * (every socket of the network namespace) filtered by the socket inodes among this process's
 * open files ({@code /proc/self/fd}).
 */
final class ListeningSockets {
    private static final String LISTEN = "0A";

    record Socket(InetAddress address, int port) {
        boolean onEveryInterface() {
            return address.isAnyLocalAddress();
        }

        @Override
        public String toString() {
            return address.getHostAddress() + ":" + port;
        }
    }

    private ListeningSockets() {}

    static List<Socket> ofThisProcess() throws IOException {
        Set<String> inodes = socketInodes();
        List<Socket> sockets = new ArrayList<>();
        for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            List<String> lines = Files.readAllLines(Path.of(table));
            for (String line : lines.subList(1, lines.size())) {
                String[] f = line.trim().split("\\s+");
                // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
                if (f[3].equals(LISTEN) && inodes.contains(f[9])) {
                    sockets.add(parse(f[1]));
                }
            }
        }
        return sockets;
    }

    private static Set<String> socketInodes() throws IOException {
        Set<String> inodes = new HashSet<>();
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            for (Path fd : (Iterable<Path>) fds::iterator) {
                try {
                    String target = Files.readSymbolicLink(fd).toString();
                    if (target.startsWith("socket:[")) {
                        inodes.add(target.substring("socket:[".length(), target.length() - 1));
                    }
                } catch (IOException closedMeanwhile) {
                    // the descriptor was closed while listing
                }
            }
        }
        return inodes;
    }

    /** {@code 0100007F:1F90}: the address as 32-bit words in host (little-endian) order, the port in hex. */
    static Socket parse(String local) throws UnknownHostException {
        String[] parts = local.split(":");
        String hex = parts[0];
        byte[] address = new byte[hex.length() / 2];
        for (int word = 0; word < hex.length() / 8; word++) {
            for (int b = 0; b < 4; b++) {
                int from = word * 8 + (3 - b) * 2;
                address[word * 4 + b] = (byte) Integer.parseInt(hex.substring(from, from + 2), 16);
            }
        }
        return new Socket(InetAddress.getByAddress(address), new BigInteger(parts[1], 16).intValue());
    }
}
