package io.streamtrain.train.batch;

/**
 * A record the job cannot train on, on its way to the dead-letter topic (as an Avro
 * {@code DeadLetter}). A POJO inside Flink so no Avro class has to cross operators.
 */
public class Rejected {
    public String source;
    public String location;
    public String reason;
    public String detail;
    public byte[] payload;
    public long time;

    public Rejected() {}

    public Rejected(String source, String location, String reason, String detail, byte[] payload, long time) {
        this.source = source;
        this.location = location;
        this.reason = reason;
        this.detail = detail;
        this.payload = payload;
        this.time = time;
    }
}
