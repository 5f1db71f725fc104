-- Scores candidates with a bundle exported from ctr_model (train-ctr.sql), in SQL.
--   bin/streamtrain sql -f flink-jobs/src/main/sql/score-ctr.sql \
--       -Dbootstrap=127.0.0.1:9092 -Dcandidates=candidates-json -Dbundle=/tmp/ctr-bundle
-- A secured cluster: add --kafka-properties client.properties (each Kafka table below takes its entries).
-- STREAMTRAIN_PREDICT(bundle, features...) takes the model table's feature columns in its order.

CREATE TABLE candidates (
  `user`  STRING,
  item    BIGINT,
  device  STRING,
  clicked INT
) WITH (
  ${kafka-properties}
  'connector' = 'kafka',
  'topic' = '${candidates}',
  'properties.bootstrap.servers' = '${bootstrap}',
  'scan.startup.mode' = 'earliest-offset',
  'scan.bounded.mode' = 'latest-offset',
  'format' = 'json'
);

SELECT `user`, item, device, clicked, STREAMTRAIN_PREDICT('${bundle}', `user`, item, device) AS p FROM candidates;
