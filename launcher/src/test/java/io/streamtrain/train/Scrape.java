package io.streamtrain.train;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** One Prometheus text-format scrape: samples by metric name, with their label text. */
record Scrape(String text, List<Sample> all) {
    record Sample(String name, String labels, double value) {}

    static Scrape of(String text) {
        List<Sample> samples = new ArrayList<>();
        for (String line : text.split("\n")) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            int brace = line.indexOf('{');
            int space = line.lastIndexOf(' ');
            String name = brace >= 0 ? line.substring(0, brace) : line.substring(0, space);
            String labels = brace >= 0 ? line.substring(brace + 1, line.lastIndexOf('}')) : "";
            samples.add(new Sample(name, labels, Double.parseDouble(line.substring(space + 1))));
        }
        return new Scrape(text, samples);
    }

    boolean has(String name) {
        return !samples(name).isEmpty();
    }

    List<Sample> samples(String name) {
        return all.stream().filter(s -> s.name().equals(name)).toList();
    }

    private List<Double> values(String name, Set<String> labels) {
        return samples(name).stream().filter(s -> labels.stream().allMatch(s.labels()::contains)).map(Sample::value).toList();
    }

    double sum(String name, Set<String> labels) {
        return values(name, labels).stream().mapToDouble(Double::doubleValue).sum();
    }

    double max(String name, Set<String> labels) {
        return values(name, labels).stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
    }

    double min(String name, Set<String> labels) {
        return values(name, labels).stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
    }
}
