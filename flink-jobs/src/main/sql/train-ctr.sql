-- Continuous CTR training from a Kafka topic of JSON click records, exactly once.
--   bin/streamtrain sql -f flink-jobs/src/main/sql/train-ctr.sql \
--       -Dbootstrap=127.0.0.1:9092 -Dclicks=clicks-json -Dcheckpoints=file:///tmp/ctr-ckpt
-- A secured cluster: add --kafka-properties client.properties (each Kafka table below takes its entries).
-- Then: bin/streamtrain export --checkpoint /tmp/ctr-ckpt --bundle /tmp/ctr-bundle (and score-ctr.sql).

SET 'execution.checkpointing.interval' = '1s';
SET 'execution.checkpointing.dir' = '${checkpoints}';
SET 'parallelism.default' = '2';

-- {"user": "u17", "item": 42, "device": "ios", "clicked": 1}
CREATE TABLE clicks (
  `user`  STRING,
  item    BIGINT,
  device  STRING,
  clicked INT
) WITH (
  ${kafka-properties}
  'connector' = 'kafka',
  'topic' = '${clicks}',
  'properties.bootstrap.servers' = '${bootstrap}',
  'properties.group.id' = 'train-ctr-sql',
  'scan.startup.mode' = 'earliest-offset',
  'format' = 'json',
  'json.ignore-parse-errors' = 'true'
);

-- Column 'label' is the label; every other column is one field, numbered by position
-- (user = 0, item = 1, device = 2), strings and integers hashed as categoricals.
CREATE TABLE ctr_model (
  label   INT,
  `user`  STRING,
  item    BIGINT,
  device  STRING
) WITH (
  ${kafka-properties}
  'connector' = 'streamtrain',
  'kafka.bootstrap-servers' = '${bootstrap}',
  'model' = 'fm',
  'dim' = '8',
  'optimizer' = 'adagrad',
  'learning-rate' = '0.05',
  'batch-size' = '256'
);

INSERT INTO ctr_model SELECT clicked AS label, `user`, item, device FROM clicks;
