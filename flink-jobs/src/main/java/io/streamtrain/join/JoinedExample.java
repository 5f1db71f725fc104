package io.streamtrain.join;

/** An encoded Example on its way to the output topic; {@code timestamp} is the event time its label was decided (the click, or the window's end). */
public class JoinedExample {
    public String impressionId;
    public long timestamp;
    public byte[] value;

    public JoinedExample() {}

    public JoinedExample(String impressionId, long timestamp, byte[] value) {
        this.impressionId = impressionId;
        this.timestamp = timestamp;
        this.value = value;
    }
}
