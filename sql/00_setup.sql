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
