package io.streamtrain.testing;

import io.streamtrain.schema.DeadLetter;
import io.streamtrain.schema.Example;
import io.streamtrain.schema.Feature;
import org.apache.avro.util.ClassSecurityValidator;

/**
 * Stopgap for tests: Avro 1.12.2 runs every class it resolves by name through
 * {@link ClassSecurityValidator}, which trusts only a few JDK classes, so
 * {@code AvroCodec.decode} fails with "Forbidden io.streamtrain.schema.Example! This class is not
 * trusted". This adds exactly the generated record classes the tests decode to the global
 * validator. The real fix belongs in {@code AvroCodec} (schemas module), so production readers get
 * the same trust; delete this then.
 */
public final class AvroTrust {
    private static boolean installed;

    private AvroTrust() {}

    public static synchronized void trustSchemaClasses() {
        if (installed) {
            return;
        }
        ClassSecurityValidator.setGlobal(ClassSecurityValidator.composite(ClassSecurityValidator.getGlobal(),
                ClassSecurityValidator.builder()
                        .add(Example.class.getName())
                        .add(Feature.class.getName())
                        .add(DeadLetter.class.getName())
                        .build()));
        installed = true;
    }
}
