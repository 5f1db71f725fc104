package io.streamtrain.model;

/**
 * A batch of examples over a table of pulled rows, column-wise: example e owns the occurrences
 * {@code [starts[e], starts[e+1])}; occurrence i is the row at offset {@code slots[i]} of the table,
 * of field {@code fields[i]}, with value {@code values[i]}. The bias row sits at {@code biasSlot}.
 * {@code fields} may be null for models that do not look at fields (lr, fm).
 */
public record Examples(int size, int[] starts, int[] slots, int[] fields, float[] values, int biasSlot) {}
