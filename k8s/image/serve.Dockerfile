# The scoring image: `streamtrain serve` (the launcher jar) on a plain Java 17 runtime; no Flink
# cluster is involved. Run as uid/gid 10001, the ids serving-deployment.yaml runs its pods as.
#
# Build from the repository root:
#   ./mvnw -B -q -pl launcher -am package -DskipTests
#   docker build -f k8s/image/serve.Dockerfile -t streamtrain-serve:0.1.0-SNAPSHOT .
FROM eclipse-temurin:17-jre

COPY launcher/target/streamtrain.jar /opt/streamtrain/streamtrain.jar
# Flink's S3 file system as a plugin beside the jar, where the launcher looks for it: serve --bundle s3://…
COPY launcher/target/plugins /opt/streamtrain/plugins

USER 10001:10001
ENTRYPOINT ["java", "-jar", "/opt/streamtrain/streamtrain.jar"]
