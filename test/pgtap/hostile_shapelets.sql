-- Shapelets on hostile data (issue #15): identical series (no split below
-- the distances' rounding level), identical windows at distance 0, a glitch
-- spike elsewhere, offsets of 1e9 with a signal of 1e-6, scales over the
-- float64 range, and the CPU against the configured backend (the GPU on a GPU
-- host run with tsmine.backend = gpu).
BEGIN;
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS tsmine;
SELECT plan(15);

-- The repro: four identical series labelled a, b, a, b.  Every window is a
-- ramp, every distance is 0: no split separates anything.  Before the fix:
-- threshold 7.45e-09, gain 0.311, and a tree claiming pure leaves that
-- classified all four as 'a'.
SELECT is((SELECT count(*)::int FROM ts_shapelets($$SELECT l, '{1,2,3,4,5,6,7,8}'::float8[] FROM unnest(ARRAY['a','b','a','b']) l$$, 3, 4)),
          0, 'identical series: ts_shapelets returns no rows (no split)');
CREATE TEMP TABLE ident AS
  SELECT ts_shapelet_tree($$SELECT l, '{1,2,3,4,5,6,7,8}'::float8[] FROM unnest(ARRAY['a','b','a','b']) l$$, 3, 4) AS m;
SELECT is((SELECT m->'root'->>'kind' FROM ident), 'leaf', 'identical series: the tree is one leaf');
SELECT is((SELECT m->'root'->'class_counts' FROM ident), '{"a": 2, "b": 2}'::jsonb,
          'identical series: the leaf holds both classes (no purity claimed)');
SELECT is((SELECT array_agg(ts_shapelet_classify(m, '{1,2,3,4,5,6,7,8}'::float8[])) FROM ident, generate_series(1, 4)),
          ARRAY['a','a','a','a'], 'identical series: the leaf''s majority (ties: the first label)');

-- identical windows: exactly 0, also scaled by 2^-600 (the same z-normalised shape)
SELECT is(ts_shapelet_distance(ARRAY[3, 1, 4, 1, 5, 9, 2, 6]::float8[],
                               ARRAY[0, 7, 3, 1, 4, 1, 5, 9, 2, 6, 8]::float8[]), 0::float8,
          'a window identical to the shapelet: distance exactly 0');
SELECT is(ts_shapelet_distance(ARRAY[3, 1, 4, 1, 5, 9, 2, 6]::float8[],
                               (SELECT array_agg(v * 2::float8 ^ -600) FROM unnest(ARRAY[0, 7, 3, 1, 4, 1, 5, 9, 2, 6, 8]::float8[]) v)),
          0::float8, 'the same window times 2^-600: distance exactly 0');

-- The oracle: the z-normalised distance of two windows in numeric, each
-- window's values taken relative to its first value first (exact in float8,
-- so offsets cost nothing), the minimum over the series' windows.
CREATE FUNCTION pg_temp.oracle_distance(a float8[], x float8[]) RETURNS float8 LANGUAGE sql AS $$
  WITH sa AS (SELECT t, (a[t] - a[1])::numeric AS v FROM generate_subscripts(a, 1) t),
       za AS (SELECT t, (v - avg(v) OVER ()) / sqrt(avg(v * v) OVER () - avg(v) OVER () ^ 2) AS z FROM sa),
       w AS (SELECT u, t, (x[u + t - 1] - x[u])::numeric AS v
             FROM generate_series(1, array_length(x, 1) - array_length(a, 1) + 1) u, generate_subscripts(a, 1) t),
       zw AS (SELECT u, t, (v - avg(v) OVER (PARTITION BY u)) / sqrt(avg(v * v) OVER (PARTITION BY u) - avg(v) OVER (PARTITION BY u) ^ 2) AS z FROM w)
  SELECT min(sqrt(s / array_length(a, 1)))::float8 FROM (SELECT u, sum((zw.z - za.z) ^ 2) s FROM zw JOIN za USING (t) GROUP BY u) d
$$;
CREATE TEMP TABLE wave AS
  SELECT i, sin(i * 0.21) + 0.3 * sin(i * 2.3) AS v, sin(i * 0.27) + 0.3 * sin(i * 2.3 + 1) AS w FROM generate_series(1, 300) i;
-- a glitch of 1e9 far from the best window changes nothing, bit for bit
SELECT is(ts_shapelet_distance((SELECT array_agg(v ORDER BY i) FROM wave WHERE i BETWEEN 40 AND 55),
                               (SELECT array_agg(CASE WHEN i = 250 THEN 1e9 ELSE w END ORDER BY i) FROM wave)),
          ts_shapelet_distance((SELECT array_agg(v ORDER BY i) FROM wave WHERE i BETWEEN 40 AND 55),
                               (SELECT array_agg(w ORDER BY i) FROM wave)),
          'a 1e9 glitch elsewhere in the series leaves the distance alone');
SELECT cmp_ok(abs(ts_shapelet_distance(s, x) / pg_temp.oracle_distance(s, x) - 1), '<', 1e-9::float8,
              'a 1e9 glitch: the oracle''s distance within 1e-9')
FROM (SELECT (SELECT array_agg(v ORDER BY i) FROM wave WHERE i BETWEEN 40 AND 55) s,
             (SELECT array_agg(CASE WHEN i = 250 THEN 1e9 ELSE w END ORDER BY i) FROM wave) x) q;
-- an offset of 1e9 with a signal of 1e-6 (8 units of 1e9's last place)
SELECT cmp_ok(abs(ts_shapelet_distance(s, x) / pg_temp.oracle_distance(s, x) - 1), '<', 1e-9::float8,
              'offset 1e9, signal 1e-6: the oracle''s distance within 1e-9')
FROM (SELECT (SELECT array_agg(1e9::float8 + 1e-6 * v ORDER BY i) FROM wave WHERE i BETWEEN 40 AND 55) s,
             (SELECT array_agg(1e9::float8 + 1e-6 * w ORDER BY i) FROM wave) x) q;
-- scales: the shapelet times 2^1000, the series times 2^-1070 (denormal): the same distance
SELECT is(ts_shapelet_distance((SELECT array_agg(v * 2::float8 ^ 1000 ORDER BY i) FROM wave WHERE i BETWEEN 40 AND 55),
                               (SELECT array_agg(round(w * 64) * 2::float8 ^ -1070 ORDER BY i) FROM wave)),
          ts_shapelet_distance((SELECT array_agg(v ORDER BY i) FROM wave WHERE i BETWEEN 40 AND 55),
                               (SELECT array_agg(round(w * 64) ORDER BY i) FROM wave)),
          'shapelet x 2^1000 against a denormal series: the unscaled distance, bit for bit');
SELECT ok(ts_shapelet_distance(ARRAY[1e308, -1e308, 1e308, 0]::float8[], ARRAY[-1e308, 1e308, 1e308, -1e308, 1e-300]::float8[])
          BETWEEN 0 AND 2, '+-1e308: a finite distance');

-- training: each series scaled by its own power of two (2^-1000 .. 2^1000,
-- as given): the same rows as unscaled, thresholds and gaps bit for bit
CREATE TEMP TABLE train AS
  SELECT r, CASE WHEN r % 2 = 0 THEN 'x' ELSE 'y' END AS label,
         array_agg(sin(i * (0.2 + 0.03 * (r % 2))) + 0.2 * sin(i * 1.9 + r) ORDER BY i) AS s
  FROM generate_series(1, 8) r, generate_series(1, 90) i GROUP BY r;
CREATE TEMP TABLE train_scaled AS
  SELECT r, label, (SELECT array_agg(v * 2::float8 ^ ((r * 337) % 2001 - 1000) ORDER BY o)
                    FROM unnest(s) WITH ORDINALITY u(v, o)) AS s FROM train;
SELECT results_eq($$SELECT rank, source_row, start, length, threshold, info_gain, gap FROM ts_shapelets('SELECT label, s FROM train ORDER BY r', 4, 30, 2, 3)$$,
                  $$SELECT rank, source_row, start, length, threshold, info_gain, gap FROM ts_shapelets('SELECT label, s FROM train_scaled ORDER BY r', 4, 30, 2, 3)$$,
                  'ts_shapelets: every series scaled by its own power of two gives the same rows');
-- a glitch of 1e9 in one training series and an offset of 1e9 in another
CREATE TEMP TABLE train_hostile AS
  SELECT r, label, CASE WHEN r = 3 THEN s[1:40] || 1e9::float8 || s[42:] WHEN r = 6 THEN
           (SELECT array_agg(1e9::float8 + v ORDER BY o) FROM unnest(s) WITH ORDINALITY u(v, o)) ELSE s END AS s FROM train;
CREATE TEMP TABLE hostile_default AS
  SELECT * FROM ts_shapelets('SELECT label, s FROM train_hostile ORDER BY r', 4, 30, 2, 5);
SELECT set_config('tsmine.backend', 'cpu', true);
SELECT results_eq($$SELECT * FROM ts_shapelets('SELECT label, s FROM train_hostile ORDER BY r', 4, 30, 2, 5)$$,
                  $$SELECT * FROM hostile_default$$,
                  'a glitch and an offset in the training set: the CPU rows equal the configured backend''s');
SELECT is((SELECT count(*)::int FROM hostile_default WHERE threshold = 'NaN' OR gap = 'NaN' OR abs(threshold) = 'Infinity'),
          0, 'every threshold and gap is finite');
SELECT cmp_ok((SELECT count(*)::int FROM hostile_default), '=', 5, 'the hostile training set has 5 shapelets');

SELECT * FROM finish();
ROLLBACK;
