package io.streamtrain.export;

/** One embedding-table row as read back from a checkpoint. {@code vector[0]} is the linear weight. */
public record ExportedRow(int field, long id, float[] vector, long count, long updatedAt) {}
