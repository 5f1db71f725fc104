package io.streamtrain.join;

/** Why the joiner dead-letters an input; {@link #code()} is {@code DeadLetter.reason}. */
public enum JoinReject {
    /** The record is not an Avro Impression / Click. */
    NOT_AVRO("not-avro"),
    /** Decodes, but cannot be joined (an empty impression id). */
    INVALID_EVENT("invalid-event"),
    /** The feature mapping rejects the impression (e.g. a numeric column that is not a number). */
    UNMAPPABLE_IMPRESSION("unmappable-impression"),
    /** The impression is behind the watermark: clicks for it may already have been dead-lettered. */
    LATE_IMPRESSION("late-impression"),
    /**
     * No impression with its id at or before the click's time: the watermark passed the click's time
     * without one (or it was forgotten after the dedup retention), or the impression is later than the click.
     */
    CLICK_WITHOUT_IMPRESSION("click-without-impression"),
    /** More than the attribution window after its impression. */
    CLICK_OUTSIDE_WINDOW("click-outside-window"),
    /** Within the window in event time, but it arrived after the window had closed (the impression went out as a 0). */
    LATE_CLICK("late-click");

    private final String code;

    JoinReject(String code) {
        this.code = code;
    }

    public String code() {
        return code;
    }
}
