package io.streamtrain.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SettingsCheckTest {
    @Test
    void aValueOutsideItsRuleIsAnErrorNamingKeyValueAndRange() {
        assertEquals("streamtrain.train.batch-size = '-5': must be >= 1", onlyError(Map.of("streamtrain.train.batch-size", "-5")));
        assertEquals("streamtrain.train.batch-size = '0': must be >= 1", onlyError(Map.of("streamtrain.train.batch-size", "0")));
        assertEquals("streamtrain.join.negative-sampling = '0': must be in (0.0, 1.0]",
                onlyError(Map.of("streamtrain.join.negative-sampling", "0")));
        assertEquals("streamtrain.train.max-wait = '0 ms': must be > 0 ms", onlyError(Map.of("streamtrain.train.max-wait", "0 ms")));
    }

    @Test
    void aValueNotOfItsTypeIsAnErrorSayingWhatTheTypeIs() {
        assertEquals("streamtrain.ps.dim = 'eight': must be an integer", onlyError(Map.of("streamtrain.ps.dim", "eight")));
        assertEquals("execution.checkpointing.interval = 'banana': must be a duration such as 500 ms, 10 s or 5 min",
                onlyError(Map.of("execution.checkpointing.interval", "banana")));
    }

    @Test
    void anUnknownStreamtrainKeyIsAnErrorWithTheNearestKey() {
        String error = onlyError(Map.of("streamtrain.train.batchsize", "64"));
        assertTrue(error.startsWith("streamtrain.train.batchsize = '64': unknown streamtrain key; did you mean streamtrain.train.batch-size?"),
                error);
    }

    @Test
    void aKeyNoOneKnowsIsAWarningNotAnError() {
        SettingsCheck.Result r = SettingsCheck.check(Map.of("execution.checkpointing.intervall", "10 s"));
        assertEquals(List.of(), r.errors());
        assertEquals(1, r.warnings().size(), r.warnings().toString());
        assertTrue(r.warnings().get(0).startsWith("execution.checkpointing.intervall: not a configuration key"), r.warnings().get(0));
    }

    @Test
    void flinkKeysReporterKeysAndMapEntriesPassQuietly() {
        SettingsCheck.Result r = SettingsCheck.check(Map.of(
                "execution.checkpointing.interval", "10 s",
                "state.backend.rocksdb.use-bloom-filter", "true",
                "metrics.reporter.prom.port", "9249",
                "pipeline.global-job-parameters.team", "ranking",
                "streamtrain.kafka.properties.security.protocol", "SASL_SSL",
                "streamtrain.train.batch-size", "64"));
        assertEquals(List.of(), r.errors());
        assertEquals(List.of(), r.warnings());
    }

    @Test
    void aDeprecatedKeyIsAWarningWithItsReplacement() {
        SettingsCheck.Result r = SettingsCheck.check(Map.of("state.checkpoints.dir", "file:///tmp/cp"));
        assertEquals(List.of("state.checkpoints.dir: deprecated: use execution.checkpointing.dir"), r.warnings());
    }

    @Test
    void sensitiveValuesAreNotRepeated() {
        String error = onlyError(Map.of("streamtrain.kafka.sasl.password", "hunter2"));
        assertTrue(error.startsWith("streamtrain.kafka.sasl.password = '******'"), error);
    }

    @Test
    void everyErrorIsInTheException() {
        InvalidSettingsException e = assertThrows(InvalidSettingsException.class, () -> SettingsCheck.check(
                Map.of("streamtrain.train.batch-size", "0", "streamtrain.ps.dim", "-1")).orThrow());
        assertEquals(2, e.problems().size());
        assertTrue(e.getMessage().contains("streamtrain.ps.dim = '-1': must be >= 0"), e.getMessage());
    }

    private static String onlyError(Map<String, String> settings) {
        List<SettingsCheck.Problem> errors = SettingsCheck.check(settings).errors();
        assertEquals(1, errors.size(), errors.toString());
        return errors.get(0).toString();
    }
}
