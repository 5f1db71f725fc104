package io.streamtrain.join;

/**
 * An impression or click as read, decoded just enough to key and time it; the original bytes
 * travel along for the dead-letter topic. A POJO, so no Avro class crosses operators.
 */
public class JoinEvent {
    public static final int IMPRESSION = 0;
    public static final int CLICK = 1;
    /** Not decodable; {@link #reason}/{@link #detail} say why. */
    public static final int UNREADABLE = 2;

    public int kind;
    public String impressionId;
    /** Event time, epoch millis. */
    public long time;
    public String topic;
    public int partition;
    public long offset;
    public byte[] value;
    public String reason;
    public String detail;

    public JoinEvent() {}

    public JoinEvent(int kind, String impressionId, long time, String topic, int partition, long offset, byte[] value) {
        this.kind = kind;
        this.impressionId = impressionId;
        this.time = time;
        this.topic = topic;
        this.partition = partition;
        this.offset = offset;
        this.value = value;
    }

    static JoinEvent unreadable(String topic, int partition, long offset, byte[] value, String reason, String detail) {
        JoinEvent e = new JoinEvent(UNREADABLE, null, Long.MIN_VALUE, topic, partition, offset, value);
        e.reason = reason;
        e.detail = detail;
        return e;
    }
}
