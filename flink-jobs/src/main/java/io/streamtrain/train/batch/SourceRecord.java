package io.streamtrain.train.batch;

/** One training-topic record as read, before decoding: decoding happens in the batcher so a bad record can be dead-lettered with its offset. */
public class SourceRecord {
    public String topic;
    public int partition;
    public long offset;
    public long timestamp;
    public byte[] value;

    public SourceRecord() {}

    public SourceRecord(String topic, int partition, long offset, long timestamp, byte[] value) {
        this.topic = topic;
        this.partition = partition;
        this.offset = offset;
        this.timestamp = timestamp;
        this.value = value;
    }
}
