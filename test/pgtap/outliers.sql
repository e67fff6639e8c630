-- ts_outliers: SQLSTATEs and properties against plain SQL, CPU against the
-- configured backend (the GPU on a GPU host run with tsmine.backend = gpu).
BEGIN;
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS tsmine;
SELECT plan(15);

-- SQLSTATEs
SELECT throws_ok($$SELECT * FROM ts_outliers(ARRAY[1, 2]::float8[], 0)$$, '22023', NULL, 'k_sigma = 0 → 22023');
SELECT throws_ok($$SELECT * FROM ts_outliers(ARRAY[1, 2]::float8[], 'NaN')$$, '22023', NULL, 'k_sigma NaN → 22023');
SELECT throws_ok($$SELECT * FROM ts_outliers(ARRAY[1, 2]::float8[], NULL)$$, '22004', NULL, 'k_sigma NULL → 22004');
SELECT throws_ok($$SELECT * FROM ts_outliers(ARRAY[1, 2]::float8[], 3, 'x')$$, '22023', NULL, 'unknown method → 22023');
SELECT throws_ok($$SELECT * FROM ts_outliers(ARRAY[1, NULL]::float8[], gaps => 'error')$$, '22004', NULL,
                 'NULL element with gaps => error → 22004');
SELECT throws_ok($$SELECT * FROM ts_outliers(ARRAY[1, 'NaN']::float8[], gaps => 'error')$$, '22000', NULL,
                 'NaN element with gaps => error → 22000');
SELECT throws_ok($$SELECT * FROM ts_outliers(ARRAY[[1], [2]]::float8[])$$, '22000', NULL, '2-D array → 22000');
SELECT throws_ok($$SELECT * FROM ts_outliers('SELECT 1, 2')$$, '42804', NULL, 'two-column query → 42804');
SELECT throws_ok($$SELECT * FROM ts_outliers('SELECT now()')$$, '42804', NULL, 'non-numeric query → 42804');

-- random series with planted outliers (deterministic)
SELECT setseed(0.42);
CREATE TEMP TABLE rs AS
  SELECT i, (random() + random() + random() + random() - 2) * 3 + CASE WHEN random() < 0.001 THEN 25 ELSE 0 END AS v
  FROM generate_series(1, 3000000) i;
CREATE TEMP TABLE rs_arr AS SELECT array_agg(v ORDER BY i) AS a FROM rs;

-- sigma: the same positions as plain SQL's avg/stddev_pop (two-pass in numeric)
SELECT set_eq(
  $$SELECT pos FROM ts_outliers((SELECT a FROM rs_arr), 3)$$,
  $$WITH s AS (SELECT avg(v::numeric) m, stddev_pop(v::numeric) sd FROM rs)
    SELECT i::bigint FROM rs, s WHERE abs(v::numeric - m) > 3 * sd$$,
  'sigma outliers equal plain SQL on 3M random values');
-- mad: the same positions as SQL's exact percentile_disc-based median and MAD
SELECT set_eq(
  $$SELECT pos FROM ts_outliers((SELECT a FROM rs_arr), 3.5, 'mad')$$,
  $$WITH med AS (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY v) m FROM rs),
         mad AS (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY abs(v - m)) d FROM rs, med)
    SELECT i::bigint FROM rs, med, mad WHERE abs(v - m) > 3.5 * (d / 0.6745)$$,
  'mad outliers equal plain SQL on 3M random values');
-- array and query forms agree
SELECT results_eq(
  $$SELECT * FROM ts_outliers((SELECT a FROM rs_arr), 3)$$,
  $$SELECT * FROM ts_outliers('SELECT v FROM rs ORDER BY i', 3)$$,
  'array and query forms return the same rows');

-- CPU against the configured backend (identical positions and values, z-scores to 1e-12)
CREATE TEMP TABLE by_default AS SELECT * FROM ts_outliers((SELECT a FROM rs_arr), 3);
CREATE TEMP TABLE by_default_mad AS SELECT * FROM ts_outliers((SELECT a FROM rs_arr), 3, 'mad');
SELECT set_config('tsmine.backend', 'cpu', true);
SELECT is(
  (SELECT count(*)::int FROM ts_outliers((SELECT a FROM rs_arr), 3) c FULL JOIN by_default g USING (pos)
   WHERE c.pos IS NULL OR g.pos IS NULL OR c.value <> g.value OR abs(c.zscore - g.zscore) > 1e-12 * abs(c.zscore)),
  0, 'sigma: CPU rows equal the configured backend''s rows');
SELECT is(
  (SELECT count(*)::int FROM ts_outliers((SELECT a FROM rs_arr), 3, 'mad') c FULL JOIN by_default_mad g USING (pos)
   WHERE c.pos IS NULL OR g.pos IS NULL OR c.value <> g.value OR abs(c.zscore - g.zscore) > 1e-12 * abs(c.zscore)),
  0, 'mad: CPU rows equal the configured backend''s rows');
SELECT cmp_ok((SELECT count(*)::int FROM by_default), '>', 1000, 'the planted outliers are found');

SELECT * FROM finish();
ROLLBACK;
