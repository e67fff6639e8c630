-- ts_outliers on hostile data (issue #15): a large offset with tiny noise
-- against an exact oracle, values near the ends of the float64 range,
-- denormal series, power-of-two rescaling, and the CPU against the configured
-- backend (the GPU on a GPU host run with tsmine.backend = gpu) bit for bit.
BEGIN;
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS tsmine;
SELECT plan(16);

-- 1e9 + noise of standard deviation 8.7e-6 (8.7e-6 times a sum of 12
-- uniforms minus 6), 180,000 values.  They lie on the grid of 1e9's last
-- place (2^-23), so m = (v - 1e9)·2^23 are exact integers and the oracle is
-- exact: |v - mean| > 3·std exactly when (n·m - S1)^2 > 9·(n·S2 - S1^2).
-- The exact answer flags 418 values (the nearest value is 0.19% from the
-- limit); the test with the mean rounded to 1e9's grid, as before issue #15,
-- flagged 409.
SELECT setseed(0.26);
CREATE TEMP TABLE offs AS
  SELECT i, 1e9::float8 + 8.7e-6::float8 * (SELECT sum(random()) FROM generate_series(1, 12) WHERE i > 0) - 6 * 8.7e-6::float8 AS v
  FROM generate_series(1, 180000) i;
CREATE TEMP TABLE offs_exact AS
  WITH m AS (SELECT i, ((v - 1e9::float8) * 8388608)::numeric AS m FROM offs),
       s AS (SELECT count(*)::numeric n, sum(m) s1, sum(m * m) s2 FROM m)
  SELECT i::bigint AS pos FROM m, s WHERE (s.n * m.m - s.s1) ^ 2 > 9 * (s.n * s.s2 - s.s1 ^ 2);
SELECT is((SELECT count(*)::int FROM offs WHERE (v - 1e9::float8) * 8388608 <> round((v - 1e9::float8) * 8388608)),
          0, '1e9 + noise: every value lies on the grid of 2^-23 (the oracle is exact)');
SELECT is((SELECT count(*)::int FROM offs_exact), 418, '1e9 + noise: the exact answer flags 418 values');
SELECT set_eq($$SELECT pos FROM ts_outliers((SELECT array_agg(v ORDER BY i) FROM offs), 3)$$,
              $$SELECT pos FROM offs_exact$$, '1e9 + noise: ts_outliers flags exactly those');

-- one value of 1e160 among sine values (its square overflows)
SELECT results_eq(
  $$SELECT pos FROM ts_outliers((SELECT array_agg(CASE WHEN i = 777 THEN 1e160 ELSE sin(i * 0.1) END ORDER BY i)
                                FROM generate_series(1, 2000) i), 3)$$,
  $$VALUES (777::bigint)$$, '1e160 among sine values is flagged, alone');
SELECT results_eq(
  $$SELECT pos FROM ts_outliers((SELECT array_agg(CASE WHEN i = 777 THEN 1e160 ELSE sin(i * 0.1) END ORDER BY i)
                                FROM generate_series(1, 2000) i), 3, 'mad')$$,
  $$VALUES (777::bigint)$$, 'mad: 1e160 among sine values is flagged, alone');

-- {1e308 x9, -1e308} at k = 2: mean 0.8e308, std 0.6e308, the last value 3 sigma away
SELECT results_eq(
  $$SELECT pos, value, round(zscore::numeric, 12) FROM ts_outliers(array_fill(1e308::float8, ARRAY[9]) || (-1e308)::float8, 2)$$,
  $$VALUES (10::bigint, -1e308::float8, -3.0::numeric)$$, '{1e308 x9, -1e308} at k = 2 flags the -1e308 (zscore -3)');
SELECT results_eq(
  $$SELECT pos, round(zscore::numeric, 10) FROM ts_outliers(array_fill(1e308::float8, ARRAY[9]) || (-1e308)::float8, 2, 'mad')$$,
  $$VALUES (10::bigint, round((-2 / (1.253314 * 0.2))::numeric, 10))$$, 'mad: the same, scored by the MeanAD');
SELECT is((SELECT count(*)::int FROM ts_outliers(ARRAY[1.7976931348623157e308, -1.7976931348623157e308,
                                                       1.7976931348623157e308, -1.7976931348623157e308, 1e-300]::float8[], 1.5)),
          0, '+-DBL_MAX alternating: no overflow, no outlier at k = 1.5');

-- denormal series: integers times 2^-1074 flag what the integers flag, with the same zscores
CREATE TEMP TABLE dn AS
  SELECT i, (1000 + (i * 7919) % 41 - 20 + CASE WHEN i = 1234 THEN 400 ELSE 0 END)::float8 AS m FROM generate_series(1, 5000) i;
SELECT results_eq(
  $$SELECT pos, zscore FROM ts_outliers((SELECT array_agg(m * 4.9406564584124654e-324 ORDER BY i) FROM dn), 3)$$,
  $$SELECT pos, zscore FROM ts_outliers((SELECT array_agg(m ORDER BY i) FROM dn), 3)$$,
  'a denormal series flags what its integers flag, same zscores');
SELECT results_eq(
  $$SELECT pos FROM ts_outliers((SELECT array_agg(m * 4.9406564584124654e-324 ORDER BY i) FROM dn), 3)$$,
  $$VALUES (1234::bigint)$$, 'the planted value of the denormal series is flagged');

-- x and 2^k·x: the same positions and zscores, values times 2^k
CREATE TEMP TABLE sc AS
  SELECT i, sin(i * 0.37) + 0.3 * sin(i * 2.1) + CASE WHEN i % 997 = 0 THEN 4 ELSE 0 END AS v FROM generate_series(1, 50000) i;
CREATE TEMP TABLE sc_rows AS
  SELECT k, o.* FROM (VALUES (-1000), (-300), (0), (200), (1000)) f(k),
    LATERAL ts_outliers((SELECT array_agg(v * 2::float8 ^ k ORDER BY i) FROM sc), 2.5) o;
SELECT is((SELECT count(*)::int FROM sc_rows a JOIN sc_rows b USING (pos)
           WHERE a.k = 0 AND b.k <> 0 AND (a.zscore <> b.zscore OR a.value * 2::float8 ^ b.k <> b.value)), 0,
          'x and 2^k x (k = -1000 .. 1000): the same zscores, values times 2^k');
SELECT is((SELECT count(DISTINCT k)::int FROM (SELECT k, array_agg(pos ORDER BY pos) p FROM sc_rows GROUP BY k) t
           WHERE p = (SELECT array_agg(pos ORDER BY pos) FROM sc_rows WHERE k = 0)), 5,
          'x and 2^k x (k = -1000 .. 1000): the same positions');

-- the CPU against the configured backend, bit for bit
CREATE TEMP TABLE hostile AS
  SELECT 1 AS id, (SELECT array_agg(v ORDER BY i) FROM offs) AS a
  UNION ALL SELECT 2, array_fill(1e308::float8, ARRAY[9]) || (-1e308)::float8
  UNION ALL SELECT 3, (SELECT array_agg(m * 4.9406564584124654e-324 ORDER BY i) FROM dn)
  UNION ALL SELECT 4, (SELECT array_agg(v * 2::float8 ^ -1000 ORDER BY i) FROM sc);
CREATE TEMP TABLE by_default AS
  SELECT h.id, m.method, o.* FROM hostile h, (VALUES ('sigma'), ('mad')) m(method), LATERAL ts_outliers(h.a, 2, m.method) o;
SELECT set_config('tsmine.backend', 'cpu', true);
CREATE TEMP TABLE by_cpu AS
  SELECT h.id, m.method, o.* FROM hostile h, (VALUES ('sigma'), ('mad')) m(method), LATERAL ts_outliers(h.a, 2, m.method) o;
SELECT is((SELECT count(*)::int FROM by_cpu c FULL JOIN by_default g USING (id, method, pos)
           WHERE c.pos IS NULL OR g.pos IS NULL OR c.value <> g.value OR c.zscore <> g.zscore), 0,
          'hostile series: the CPU rows equal the configured backend''s, zscores bit for bit');
SELECT cmp_ok((SELECT count(*)::int FROM by_cpu), '>', 1000, 'the hostile series have outliers at k = 2');
SELECT is((SELECT count(*)::int FROM by_cpu WHERE zscore = 'NaN' OR abs(zscore) = 'Infinity'), 0, 'every zscore is finite');
SELECT is((SELECT count(*)::int FROM ts_outliers((SELECT array_agg(v ORDER BY i) FROM offs), 3)), 418,
          '1e9 + noise on the CPU: 418');

SELECT * FROM finish();
ROLLBACK;
