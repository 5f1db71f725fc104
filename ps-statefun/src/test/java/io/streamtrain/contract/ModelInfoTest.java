package io.streamtrain.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.streamtrain.model.ModelKind;
import io.streamtrain.model.ModelShape;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ModelInfoTest {
    @TempDir
    Path dir;

    @Test
    void aDeepModelsShapeSurvivesModelJson() throws Exception {
        ModelInfo info = new ModelInfo("m", "t", "dcn", 16, "adagrad", 0, 128, 39, List.of(256, 128, 64), 3);
        info.write(dir);
        ModelInfo read = ModelInfo.read(dir);
        assertEquals(info, read);
        assertEquals(new ModelShape(ModelKind.DCN, 16, 39, List.of(256, 128, 64), 3), read.shape());
    }

    @Test
    void aModelJsonWrittenBeforeDeepModelsReadsAsASparseModel() throws Exception {
        Files.writeString(dir.resolve(ModelInfo.FILE), """
                {"name":"m","topic":"t","model":"fm","dim":4,"optimizer":"adagrad","rowTtlMs":0,"maxParallelism":128}
                """);
        ModelInfo read = ModelInfo.read(dir);
        assertEquals(new ModelInfo("m", "t", "fm", 4, "adagrad", 0, 128), read);
        assertEquals(ModelShape.sparse(ModelKind.FM, 4), read.shape());
    }
}
