-- ts_outliers: results, conventions, both input forms, and every error.
SET extra_float_digits = 0;

-- one clear outlier among ten values
SELECT pos, value, round(zscore::numeric, 6) AS zscore
FROM ts_outliers(ARRAY[1, 2, 1, 2, 1, 2, 1, 2, 1, 40]::float8[], 2);

-- defaults: k_sigma = 3, method = 'sigma'; integer and numeric arrays by cast
SELECT * FROM ts_outliers(ARRAY[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 100]);
SELECT pos, value FROM ts_outliers(ARRAY[1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 99.5]::numeric[]);

-- the robust method: median 2, MAD 1; 0.6745 * (30 - 2) / 1 = 18.886
SELECT pos, value, round(zscore::numeric, 4) AS zscore
FROM ts_outliers(ARRAY[1, 2, 3, 2, 1, 2, 3, 2, 30]::float8[], 3.5, 'mad');
SELECT count(*) FROM ts_outliers(ARRAY[1, 2, 3, 2, 1, 2, 3, 2, 30]::float8[], 3.5, 'MAD');

-- MAD = 0 (most values equal the median): the MeanAD fallback, (50 - 1) / (1.253314 * 49 / 10) = 7.9788
SELECT pos, value, round(zscore::numeric, 4) AS zscore
FROM ts_outliers(ARRAY[1, 1, 1, 1, 1, 1, 1, 1, 1, 50]::float8[], 3, 'mad');

-- constant series: no spread, no outliers (both methods)
SELECT count(*) FROM ts_outliers(array_fill(7.0::float8, ARRAY[1000]));
SELECT count(*) FROM ts_outliers(array_fill(7.0::float8, ARRAY[1000]), 3, 'mad');

-- empty series → empty result; a single value has no spread
SELECT count(*) FROM ts_outliers('{}'::float8[]);
SELECT count(*) FROM ts_outliers(ARRAY[5]::float8[]);

-- numerical safety: 1e9 + bounded noise with one planted 10-sigma value
-- (the single-pass E[x^2] - E[x]^2 formula loses every digit here)
SELECT pos FROM ts_outliers(
  (SELECT array_agg(1e9 + CASE WHEN i = 77777 THEN 10 * sqrt(1.0 / 3) ELSE (((i * 7919) % 1000) / 500.0 - 1) END ORDER BY i)
     FROM generate_series(1, 100000) i)::float8[], 5);

-- the same through the query form, with a real series: TEK16
SELECT count(*) AS n_outliers, min(pos), max(pos)
FROM ts_outliers('SELECT v FROM tek16 ORDER BY pos', 3);
SELECT count(*) = (SELECT count(*) FROM ts_outliers((SELECT array_agg(v ORDER BY pos) FROM tek16), 3)) AS same
FROM ts_outliers('SELECT v FROM tek16 ORDER BY pos', 3);
-- query form: other numeric column types
SELECT pos, value FROM ts_outliers('SELECT x::int FROM (VALUES (1),(1),(1),(1),(1),(1),(1),(1),(1),(1),(1),(9)) t(x)', 3);
SELECT pos, value FROM ts_outliers('SELECT x::numeric FROM (VALUES (1),(1),(1),(1),(1),(1),(1),(1),(1),(1),(1),(9)) t(x)', 3);
SELECT count(*) FROM ts_outliers('SELECT 1.0::float8 WHERE false');

-- join back to timestamps: positions are 1-based in series order
WITH s AS (SELECT array_agg(v ORDER BY ts) AS series, array_agg(ts ORDER BY ts) AS times FROM jumpsup)
SELECT o.pos, s.times[o.pos] AS ts, round(o.value::numeric, 3) AS value
FROM s, ts_outliers(s.series, 2.5) o
ORDER BY o.pos LIMIT 5;
WITH t AS (SELECT row_number() OVER (ORDER BY ts) AS pos, ts FROM jumpsup)
SELECT t.ts, round(o.zscore::numeric, 3) AS zscore
FROM ts_outliers('SELECT v FROM jumpsup ORDER BY ts', 2.5) o JOIN t USING (pos)
ORDER BY o.zscore DESC, t.ts LIMIT 3;

-- LATERAL over a table of series
CREATE TEMP TABLE sensors (id int, series float8[]);
INSERT INTO sensors VALUES
  (1, ARRAY[1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 20]),
  (2, ARRAY[5, 5, 5, 5, 5]),
  (3, ARRAY[0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, -30]);
SELECT s.id, o.pos, o.value FROM sensors s, LATERAL ts_outliers(s.series, 3) o ORDER BY s.id, o.pos;

-- errors: arguments
SELECT * FROM ts_outliers(ARRAY[1, 2, 3]::float8[], 0);
SELECT * FROM ts_outliers(ARRAY[1, 2, 3]::float8[], -1);
SELECT * FROM ts_outliers(ARRAY[1, 2, 3]::float8[], 'NaN');
SELECT * FROM ts_outliers(ARRAY[1, 2, 3]::float8[], 'Infinity');
SELECT * FROM ts_outliers(ARRAY[1, 2, 3]::float8[], NULL);
SELECT * FROM ts_outliers(ARRAY[1, 2, 3]::float8[], 3, 'iqr');
SELECT * FROM ts_outliers(ARRAY[1, 2, 3]::float8[], 3, NULL);
SELECT * FROM ts_outliers(NULL::float8[]);
-- errors: the series
SELECT * FROM ts_outliers(ARRAY[1, NULL, 3]::float8[], gaps => 'error');
SELECT * FROM ts_outliers(ARRAY[1, 2, 'NaN']::float8[], gaps => 'error');
SELECT * FROM ts_outliers(ARRAY[1, '-Infinity', 3]::float8[], gaps => 'error');
SELECT * FROM ts_outliers(ARRAY[[1, 2], [3, 4]]::float8[]);
-- errors: the query form
SELECT * FROM ts_outliers(NULL::text);
SELECT * FROM ts_outliers('SELECT 1, 2');
SELECT * FROM ts_outliers('SELECT ''a''::text');
SELECT * FROM ts_outliers('SELECT x FROM (VALUES (1.0), (NULL), (3.0)) t(x)', gaps => 'error');
SELECT * FROM ts_outliers('SELECT x FROM (VALUES (1.0), (''NaN''), (3.0)) t(x)', gaps => 'error');
SELECT * FROM ts_outliers('SELEC 1');
SELECT * FROM ts_outliers('SELECT v FROM no_such_table');
SELECT * FROM ts_outliers('CREATE TEMP TABLE z (a int)');
