-- tsmine demo: the real series of the demo and its report, loaded into
-- temporary tables (run from the folder that holds shared/; demo.sql and
-- test/shell/report.sh include it).
\echo '== Loading real series: NAB art_daily_jumpsup (5-minute data), the TEK16 space shuttle valve, an ECG (qtdbsel102)'
CREATE TEMP TABLE jumpsup (ts timestamp PRIMARY KEY, v float8 NOT NULL);
\copy jumpsup FROM 'shared/data/anomaly/nab/artificialWithAnomaly/art_daily_jumpsup.csv' WITH (FORMAT csv, HEADER true)
CREATE TEMP TABLE tek16 (pos bigserial PRIMARY KEY, v float8 NOT NULL);
\copy tek16 (v) FROM 'shared/data/anomaly/keogh_discords/space_shuttle/TEK16.txt'
CREATE TEMP TABLE ecg_raw (pos bigserial, t text, lead1 float8, lead2 float8);
\copy ecg_raw (t, lead1, lead2) FROM PROGRAM 'tr -d "\r" < shared/data/anomaly/keogh_discords/ecg/qtdbsel102.txt' WITH (FORMAT text, DELIMITER E'\t')
CREATE TEMP TABLE ecg AS SELECT pos, lead1 AS v FROM ecg_raw;
