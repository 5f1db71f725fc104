package io.streamtrain.ps;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.apache.flink.api.common.TaskInfoImpl;
import org.apache.flink.runtime.metrics.DescriptiveStatisticsHistogram;
import org.junit.jupiter.api.Test;

class StalenessReporterTest {
    @Test
    void recordsEveryPushAndReportsTheRecentQuantilesAboutOnceASecond() {
        RunHistogram run = new RunHistogram();
        StalenessReporter reporter = new StalenessReporter(new DescriptiveStatisticsHistogram(16), run,
                new TaskInfoImpl("ps", 128, 1, 2, 3), 1_000);
        StalenessReport first = reporter.record(1_000, 1_040);
        assertNotNull(first, "the first push after a second reports");
        assertEquals(1_040, first.time);
        assertEquals(1, first.subtask);
        assertEquals(2, first.parallelism);
        assertEquals(3, first.attempt);
        assertEquals(40, first.p99Ms);

        assertNull(reporter.record(1_500, 1_520));
        assertNull(reporter.record(1_900, 2_039), "999 ms after the last report");
        StalenessReport next = reporter.record(1_980, 2_040);
        assertNotNull(next);
        assertEquals(139, next.p99Ms);
        assertEquals(4, run.getCount());
    }
}
