package io.streamtrain.k8s;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The instructions of the job image's Dockerfile that the manifests depend on. */
record Dockerfile(String from, List<Copy> copies, String user) {
    record Copy(String source, String destination) {}

    static Dockerfile read(Path file) {
        String from = null;
        String user = null;
        List<Copy> copies = new ArrayList<>();
        try {
            for (String line : Files.readAllLines(file)) {
                String[] words = line.trim().split("\\s+");
                if (words[0].isEmpty() || words[0].startsWith("#")) {
                    continue;
                }
                switch (words[0].toUpperCase()) {
                    case "FROM" -> from = words[1];
                    case "USER" -> user = words[1];
                    case "COPY" -> copies.add(new Copy(words[words.length - 2], words[words.length - 1]));
                    default -> { }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new Dockerfile(from, copies, user);
    }

    String fromTag() {
        return from.substring(from.lastIndexOf(':') + 1);
    }
}
