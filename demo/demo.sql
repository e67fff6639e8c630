-- tsmine demo on real series (run by scripts/demo.sh from the folder that holds shared/)
\pset footer off
\timing off
CREATE EXTENSION IF NOT EXISTS tsmine;

\echo '== Where tsmine runs'
SELECT backend, kind, name, compute_capability, pg_size_pretty(total_memory) AS memory, build
FROM ts_device_info();

\echo '== Loading real series: NAB art_daily_jumpsup (5-minute data), the TEK16 space shuttle valve, an ECG (qtdbsel102)'
CREATE TEMP TABLE jumpsup (ts timestamp PRIMARY KEY, v float8 NOT NULL);
\copy jumpsup FROM 'shared/data/anomaly/nab/artificialWithAnomaly/art_daily_jumpsup.csv' WITH (FORMAT csv, HEADER true)
CREATE TEMP TABLE tek16 (pos bigserial PRIMARY KEY, v float8 NOT NULL);
\copy tek16 (v) FROM 'shared/data/anomaly/keogh_discords/space_shuttle/TEK16.txt'
CREATE TEMP TABLE ecg_raw (pos bigserial, t text, lead1 float8, lead2 float8);
\copy ecg_raw (t, lead1, lead2) FROM PROGRAM 'tr -d "\r" < shared/data/anomaly/keogh_discords/ecg/qtdbsel102.txt' WITH (FORMAT text, DELIMITER E'\t')
CREATE TEMP TABLE ecg AS SELECT pos, lead1 AS v FROM ecg_raw;
SELECT 'jumpsup' AS series, count(*) AS n FROM jumpsup
UNION ALL SELECT 'tek16', count(*) FROM tek16
UNION ALL SELECT 'ecg qtdbsel102', count(*) FROM ecg;

\echo '== Outliers beyond 3 sigma in the NAB series, joined back to their timestamps'
WITH t AS (SELECT row_number() OVER (ORDER BY ts) AS pos, ts FROM jumpsup)
SELECT t.ts, round(o.value::numeric, 2) AS value, round(o.zscore::numeric, 2) AS zscore
FROM ts_outliers('SELECT v FROM jumpsup ORDER BY ts', 3) o JOIN t USING (pos)
ORDER BY t.ts LIMIT 10;

\echo '== The robust method (median and MAD) on the same series: how many, and when'
WITH t AS (SELECT row_number() OVER (ORDER BY ts) AS pos, ts FROM jumpsup)
SELECT count(*) AS outliers, min(t.ts) AS first, max(t.ts) AS last
FROM ts_outliers('SELECT v FROM jumpsup ORDER BY ts', 3.5, 'mad') o JOIN t USING (pos);

\echo '== Outliers of the ECG lead, by sigma and by MAD'
SELECT 'sigma' AS method, count(*) AS outliers FROM ts_outliers('SELECT v FROM ecg ORDER BY pos', 4)
UNION ALL
SELECT 'mad', count(*) FROM ts_outliers('SELECT v FROM ecg ORDER BY pos', 4, 'mad');

\echo '== The last call, timed'
SELECT function, backend, n, round(total_ms::numeric, 2) AS total_ms FROM ts_last_run();
