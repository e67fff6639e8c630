-- tsmine demo on real series (run by scripts/demo.sh from the folder that holds shared/)
\set QUIET 1
\pset footer off
\timing off
CREATE EXTENSION IF NOT EXISTS tsmine;

\echo '== Where tsmine runs'
SELECT backend, kind, name, compute_capability, pg_size_pretty(total_memory) AS memory, build
FROM ts_device_info();

\ir load.sql
SELECT 'jumpsup' AS series, count(*) AS n FROM jumpsup
UNION ALL SELECT 'tek16', count(*) FROM tek16
UNION ALL SELECT 'ecg qtdbsel102', count(*) FROM ecg;

\echo '== Outliers beyond 3 sigma in the NAB series, with their timestamps (the (time, value) query form)'
SELECT time, round(value::numeric, 2) AS value, round(zscore::numeric, 2) AS zscore
FROM ts_outliers(NULL::timestamp, 'SELECT ts, v FROM jumpsup ORDER BY ts', 3)
ORDER BY time LIMIT 10;

\echo '== The robust method (median and MAD) on the same series: how many, and when'
SELECT count(*) AS outliers, min(time) AS first, max(time) AS last
FROM ts_outliers(NULL::timestamp, 'SELECT ts, v FROM jumpsup ORDER BY ts', 3.5, 'mad');

\echo '== The most unusual day of the NAB series (m = 288 five-minute readings) and when its nearest neighbour was'
SELECT rank, start_time, round(distance::numeric, 3) AS distance, neighbor_time
FROM ts_discords(NULL::timestamp, 'SELECT ts, v FROM jumpsup ORDER BY ts', 288, 2);

\echo '== Outliers of the ECG lead, by sigma and by MAD'
SELECT 'sigma' AS method, count(*) AS outliers FROM ts_outliers('SELECT v FROM ecg ORDER BY pos', 4)
UNION ALL
SELECT 'mad', count(*) FROM ts_outliers('SELECT v FROM ecg ORDER BY pos', 4, 'mad');

\echo '== Top-3 discords of the ECG (m = 256 samples): the first is the labelled anomaly (rows 4231..4429)'
SELECT rank, pos, round(distance::numeric, 3) AS distance, neighbor,
       pos + 255 >= 4231 AND pos <= 4429 AS overlaps_label
FROM ts_discords('SELECT v FROM ecg ORDER BY pos', 256, 3);

\echo '== Range discords of the space shuttle valve: every window at distance >= 13.95 from all others'
SELECT rank, pos, round(distance::numeric, 3) AS distance FROM ts_discords('SELECT v FROM tek16 ORDER BY pos', 128, NULL, 13.95) LIMIT 5;

\echo '== The matrix profile of the valve series kept as two arrays (like STUMPY''s P and I), and its largest entry'
CREATE TEMP TABLE tek16_profile AS SELECT * FROM ts_matrix_profile_arrays('SELECT v FROM tek16 ORDER BY pos', 128);
SELECT cardinality(p.distance) AS windows, top.pos, round(top.distance::numeric, 3) AS distance, p.neighbor[top.pos] AS neighbor
FROM tek16_profile p,
     LATERAL (SELECT i AS pos, p.distance[i] AS distance FROM generate_subscripts(p.distance, 1) i
              ORDER BY p.distance[i] DESC NULLS LAST, i LIMIT 1) top;

\echo '== The three closest pairs of 128-sample windows in the valve series (motifs), and where the first one recurs'
SELECT rank, pos_a, pos_b, round(distance::numeric, 4) AS distance FROM ts_motifs('SELECT v FROM tek16 ORDER BY pos', 128, 3);
SELECT rank, pos, round(distance::numeric, 4) AS distance
FROM ts_match('SELECT v FROM tek16 ORDER BY pos', (SELECT array_agg(v ORDER BY pos) FROM tek16 WHERE pos BETWEEN 3386 AND 3513), k => 5);

\echo '== Shapelets of UCR GunPoint (gun drawn or pointed), a shapelet tree, and its accuracy on the test set'
CREATE TEMP TABLE gp_raw (id bigserial, part text, line text);
\copy gp_raw (line) FROM 'shared/data/ucr/GunPoint/GunPoint_TRAIN.tsv' WITH (FORMAT text, DELIMITER '|')
UPDATE gp_raw SET part = 'train';
\copy gp_raw (line) FROM 'shared/data/ucr/GunPoint/GunPoint_TEST.tsv' WITH (FORMAT text, DELIMITER '|')
UPDATE gp_raw SET part = 'test' WHERE part IS NULL;
CREATE TEMP TABLE gunpoint AS
  SELECT id, part, split_part(line, E'\t', 1)::float8::int::text AS label, (string_to_array(line, E'\t'))[2:]::float8[] AS series FROM gp_raw;
SELECT rank, source_row, start, length, round(threshold::numeric, 3) AS threshold, round(info_gain::numeric, 3) AS info_gain
FROM ts_shapelets('SELECT label, series FROM gunpoint WHERE part = ''train'' ORDER BY id', 10, 150, 10, 3);
CREATE TEMP TABLE model AS
  SELECT ts_shapelet_tree('SELECT label, series FROM gunpoint WHERE part = ''train'' ORDER BY id', 10, 150, 10) AS m;
SELECT m->'root'->>'op' AS root_split, round((m->'root'->>'threshold')::numeric, 3) AS threshold, m->'root'->'class_counts' AS counts FROM model;
SELECT round(avg((c.label = g.label)::int), 3) AS test_accuracy, count(*) AS test_series
FROM model, ts_shapelet_classify(model.m, 'SELECT id, series FROM gunpoint WHERE part = ''test'' ORDER BY id') c
JOIN gunpoint g ON g.id = c.id::bigint;

\echo '== The last call, timed'
SELECT function, backend, n, round(total_ms::numeric, 2) AS total_ms FROM ts_last_run();

\echo '== Pictures of these series (ts_plot): an HTML report'
\ir report.sql
