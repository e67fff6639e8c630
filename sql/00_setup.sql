-- Set-up shared by the regression tests: the extension and real series.
CREATE EXTENSION tsmine;
SET extra_float_digits = 0;

-- NASA space shuttle Marotta valve series TEK16 (Keogh's discord benchmark)
CREATE TABLE tek16 (pos bigserial PRIMARY KEY, v float8 NOT NULL);
\copy tek16 (v) FROM '../shared/data/anomaly/keogh_discords/space_shuttle/TEK16.txt'
SELECT count(*), round(avg(v)::numeric, 6) AS mean FROM tek16;

-- NAB art_daily_jumpsup: 5-minute data with timestamps
CREATE TABLE jumpsup (ts timestamp PRIMARY KEY, v float8 NOT NULL);
\copy jumpsup FROM '../shared/data/anomaly/nab/artificialWithAnomaly/art_daily_jumpsup.csv' WITH (FORMAT csv, HEADER true)
SELECT count(*), min(ts), max(ts) FROM jumpsup;

-- the ECG qtdbsel102 (first lead) and the respiration series nprs44
CREATE TABLE ecg_raw (pos bigserial, t text, lead1 float8, lead2 float8);
\copy ecg_raw (t, lead1, lead2) FROM PROGRAM 'tr -d "\r" < ../shared/data/anomaly/keogh_discords/ecg/qtdbsel102.txt' WITH (FORMAT text, DELIMITER E'\t')
CREATE TABLE ecg AS SELECT pos, lead1 AS v FROM ecg_raw;
CREATE TABLE nprs44 (pos bigserial PRIMARY KEY, v float8 NOT NULL);
\copy nprs44 (v) FROM '../shared/data/anomaly/keogh_discords/respiration/nprs44.txt'
SELECT (SELECT count(*) FROM ecg) AS ecg, (SELECT count(*) FROM nprs44) AS nprs44;

-- UCR GunPoint and ItalyPowerDemand (label, then the values, tab-separated)
CREATE TABLE ucr_raw (id bigserial, dataset text, part text, line text);
\copy ucr_raw (line) FROM '../shared/data/ucr/GunPoint/GunPoint_TRAIN.tsv' WITH (FORMAT text, DELIMITER '|')
UPDATE ucr_raw SET dataset = 'GunPoint', part = 'train' WHERE dataset IS NULL;
\copy ucr_raw (line) FROM '../shared/data/ucr/GunPoint/GunPoint_TEST.tsv' WITH (FORMAT text, DELIMITER '|')
UPDATE ucr_raw SET dataset = 'GunPoint', part = 'test' WHERE dataset IS NULL;
\copy ucr_raw (line) FROM '../shared/data/ucr/ItalyPowerDemand/ItalyPowerDemand_TRAIN.tsv' WITH (FORMAT text, DELIMITER '|')
UPDATE ucr_raw SET dataset = 'ItalyPowerDemand', part = 'train' WHERE dataset IS NULL;
\copy ucr_raw (line) FROM '../shared/data/ucr/ItalyPowerDemand/ItalyPowerDemand_TEST.tsv' WITH (FORMAT text, DELIMITER '|')
UPDATE ucr_raw SET dataset = 'ItalyPowerDemand', part = 'test' WHERE dataset IS NULL;
CREATE TABLE ucr AS
  SELECT id, dataset, part, (string_to_array(line, E'\t'))[1]::float8::int::text AS label,
         (string_to_array(line, E'\t'))[2:]::float8[] AS series
  FROM ucr_raw;
SELECT dataset, part, count(*), min(array_length(series, 1)) AS length FROM ucr GROUP BY 1, 2 ORDER BY 1, 2;
