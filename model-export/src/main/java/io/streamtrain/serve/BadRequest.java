package io.streamtrain.serve;

/** A request the server refuses, with the HTTP status and a message for the caller. */
public final class BadRequest extends Exception {
    private static final long serialVersionUID = 1L;
    private final int status;

    BadRequest(int status, String message) {
        super(message);
        this.status = status;
    }

    static BadRequest invalid(String message) {
        return new BadRequest(400, message);
    }

    static BadRequest tooLarge(String message) {
        return new BadRequest(413, message);
    }

    public int status() {
        return status;
    }
}
