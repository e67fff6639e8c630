-- Shapelets with gaps (issue #11 item 2): NULL, NaN and ±Infinity values of
-- the series are gaps by default.  A window that holds one is never a
-- shapelet; the distance of a shapelet to a series is the minimum over its
-- windows without one (checked against ts_shapelet_distance on every
-- gap-free window alone), NULL when there is none; such a series falls on
-- the far side of every split; gaps => 'error' keeps the errors, a shapelet
-- with a gap is an error either way.  Every form: array, query, timed.  On
-- GunPoint with gaps, the CPU gives the configured backend's shapelets and
-- tree (on a GPU host run with tsmine.backend = gpu: the GPU's).
BEGIN;
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS tsmine;
SELECT plan(23);

-- 16 series of 60 values, two classes (a bump or a dip at a place of their
-- own), with gaps: NULLs at the start, in the middle, at the end, a NaN, an
-- Infinity, every 7th value of one series, and one series of gaps alone
CREATE TEMP TABLE train AS
  SELECT s, CASE WHEN s % 2 = 0 THEN 'bump' ELSE 'dip' END AS label,
         array_agg(CASE
           WHEN s = 1 AND i <= 3 THEN NULL
           WHEN s = 2 AND i BETWEEN 30 AND 33 THEN NULL
           WHEN s = 3 AND i = 60 THEN NULL
           WHEN s = 4 AND i = 17 THEN 'NaN'::float8
           WHEN s = 5 AND i = 41 THEN 'Infinity'::float8
           WHEN s = 6 AND i % 7 = 0 THEN NULL
           WHEN s = 7 THEN NULL
           ELSE sin(i * (0.3 + 0.01 * s)) * 0.2
                + CASE WHEN i BETWEEN 10 + 2 * s AND 17 + 2 * s THEN (CASE WHEN s % 2 = 0 THEN 2 ELSE -2 END)
                                                                     * sin((i - 10 - 2 * s) * pi() / 7)
                       ELSE 0 END
         END ORDER BY i) AS series
  FROM generate_series(1, 16) s, generate_series(1, 60) i GROUP BY s;
-- window [p, p + len) of a series holds a gap
CREATE FUNCTION pg_temp.has_gap(x float8[], p int, len int) RETURNS bool AS $$
  SELECT EXISTS (SELECT 1 FROM generate_series(p, p + len - 1) i
                 WHERE x[i] IS NULL OR x[i] = 'NaN' OR x[i] IN ('Infinity', '-Infinity'))
$$ LANGUAGE sql IMMUTABLE;
-- the minimum of ts_shapelet_distance over the gap-free windows alone (NULL: none)
CREATE FUNCTION pg_temp.oracle(shp float8[], x float8[]) RETURNS float8 AS $$
  SELECT min(ts_shapelet_distance(shp, x[u:u + array_length(shp, 1) - 1]))
  FROM generate_series(1, array_length(x, 1) - array_length(shp, 1) + 1) u
  WHERE NOT pg_temp.has_gap(x, u, array_length(shp, 1))
$$ LANGUAGE sql IMMUTABLE;

CREATE TEMP TABLE best AS
  SELECT * FROM ts_shapelets('SELECT label, series FROM train ORDER BY s', 5, 12, 1, 40);
SELECT is((SELECT count(*)::int FROM best), 40, 'ts_shapelets trains on series with gaps');
SELECT is((SELECT count(*)::int FROM best b JOIN train t ON t.s = b.source_row
           WHERE pg_temp.has_gap(t.series, b.start, b.length)), 0, 'no shapelet holds a gap');
SELECT is((SELECT count(*)::int FROM best b JOIN train t ON t.s = b.source_row
           WHERE b.shapelet IS DISTINCT FROM t.series[b.start:b.start + b.length - 1]), 0,
          'every shapelet is its source row''s window');
SELECT is((SELECT count(*)::int FROM best b, train t
           WHERE ts_shapelet_distance(b.shapelet, t.series) IS DISTINCT FROM pg_temp.oracle(b.shapelet, t.series)), 0,
          'ts_shapelet_distance is the minimum over the windows without a gap (NULL when none)');
SELECT is((SELECT count(*)::int FROM best b, train t WHERE t.s = 7 AND ts_shapelet_distance(b.shapelet, t.series) IS NOT NULL),
          0, 'a series of gaps alone: NULL distance');
SELECT is((SELECT count(*)::int FROM best b, train t WHERE t.s = 6 AND b.length >= 7
             AND ts_shapelet_distance(b.shapelet, t.series) IS NOT NULL),
          0, 'a gap every 7th value: NULL distance for shapelets of 7 values or more');
-- each shapelet's split as reported: a series without a gap-free window
-- counts as distance 2, on the far side
SELECT is((SELECT count(*)::int FROM best WHERE threshold >= 2), 0, 'thresholds lie below 2');
SELECT is((SELECT count(*)::int FROM best b, train t
           WHERE coalesce(ts_shapelet_distance(b.shapelet, t.series), 2) <= b.threshold AND t.s = 7), 0,
          'a series of gaps alone lies on the far side of every split');

-- trees and classification
CREATE TEMP TABLE model AS SELECT ts_shapelet_tree('SELECT label, series FROM train ORDER BY s', 5, 12) AS m;
CREATE TEMP TABLE model_or AS SELECT ts_shapelet_tree('SELECT label, series FROM train ORDER BY s', 5, 12, 1, NULL, true) AS m;
SELECT is((SELECT count(*)::int FROM model, train WHERE ts_shapelet_classify(m, series) <> label), 0,
          'the tree classifies its training set, gaps and all');
SELECT is((SELECT count(*)::int FROM model_or, train WHERE ts_shapelet_classify(m, series) <> label), 0,
          'the logical tree too');
-- the leaf of the walk that always goes right
CREATE FUNCTION pg_temp.rightmost(n jsonb) RETURNS text AS $$
  SELECT CASE WHEN n->>'kind' = 'leaf' THEN n->>'label' ELSE pg_temp.rightmost(n->'right') END
$$ LANGUAGE sql IMMUTABLE;
SELECT is((SELECT ts_shapelet_classify(m, array_fill(NULL::float8, ARRAY[60])) FROM model),
          (SELECT pg_temp.rightmost(m->'root') FROM model), 'a series of gaps alone goes right at every split');
SELECT is((SELECT count(*)::int FROM model, ts_shapelet_classify(m, 'SELECT s, series FROM train ORDER BY s') c
           JOIN train t ON t.s = c.id::int WHERE c.label <> ts_shapelet_classify(m, t.series)), 0,
          'the batch form gives the scalar form''s labels');
SELECT is((SELECT label FROM model, ts_shapelet_classify(m, '{1,NULL,3,NaN,5,6,7,8,9,10,11,12}')),
          (SELECT ts_shapelet_classify(m, '{1,NULL,3,NaN,5,6,7,8,9,10,11,12}'::float8[]) FROM model),
          'an array literal with gaps in the batch form');
-- the timed form
SELECT is((SELECT array_agg(source_row ORDER BY rank) FROM ts_shapelets(NULL::int,
             'SELECT label, (SELECT array_agg(i ORDER BY i) FROM generate_series(1, 60) i), series FROM train ORDER BY s',
             5, 12, 1, 40)),
          (SELECT array_agg(source_row ORDER BY rank) FROM best), 'the timed form: the same shapelets');

-- gaps => 'error', and the errors of a shapelet with a gap
SELECT throws_ok($$SELECT * FROM ts_shapelets('SELECT label, series FROM train ORDER BY s', 5, 12, gaps => 'error')$$,
                 '22004', NULL, 'gaps => error: ts_shapelets rejects a NULL');
SELECT throws_ok($$SELECT ts_shapelet_tree('SELECT label, series FROM train WHERE s IN (4, 8) ORDER BY s', 5, 12, gaps => 'error')$$,
                 '22000', NULL, 'gaps => error: ts_shapelet_tree rejects a NaN');
SELECT throws_ok($$SELECT ts_shapelet_distance('{1,2,3}', '{1,2,Infinity,4}', 'error')$$, '22000', NULL,
                 'gaps => error: ts_shapelet_distance rejects an infinity');
SELECT throws_ok($$SELECT ts_shapelet_classify(m, '{1,NULL,3}'::float8[], 'error') FROM model$$, '22004', NULL,
                 'gaps => error: ts_shapelet_classify rejects a NULL');
SELECT throws_ok($$SELECT * FROM ts_shapelet_classify((SELECT m FROM model), 'SELECT series FROM train', 'error')$$,
                 '22004', NULL, 'gaps => error: the batch form rejects a NULL');
SELECT throws_ok($$SELECT ts_shapelet_distance('{1,NULL,3}', '{1,2,3,4}')$$, '22004', NULL,
                 'a shapelet with a NULL is an error whatever gaps says');
SELECT throws_ok($$SELECT ts_shapelet_distance('{1,2,3}', '{1,2,3,4}', 'interpolate')$$, '22023',
                 'unknown gaps "interpolate"', 'gaps must be skip or error');

-- GunPoint with gaps (every 19th value, and a run of 15 in every fourth
-- series): the CPU against the configured backend
CREATE TEMP TABLE gp (id bigserial, line text);
\copy gp (line) FROM '../shared/data/ucr/GunPoint/GunPoint_TRAIN.tsv' WITH (FORMAT text, DELIMITER '|')
CREATE TEMP TABLE gp_gaps AS
  SELECT id, split_part(line, E'\t', 1)::float8::int::text AS label,
         (SELECT array_agg(CASE WHEN i % 19 = 0 OR (id % 4 = 0 AND i BETWEEN 40 AND 54) THEN NULL ELSE v END
                           ORDER BY i)
          FROM unnest((string_to_array(line, E'\t'))[2:]::float8[]) WITH ORDINALITY AS u(v, i)) AS series
  FROM gp;
CREATE TEMP TABLE d_shp AS SELECT * FROM ts_shapelets('SELECT label, series FROM gp_gaps ORDER BY id', 10, 150, 10, 5);
CREATE TEMP TABLE d_tree AS
  SELECT ts_shapelet_tree('SELECT label, series FROM gp_gaps ORDER BY id', 10, 150, 10, logical => true) AS m;
SELECT set_config('tsmine.backend', 'cpu', true);
SELECT is((SELECT count(*)::int FROM ts_shapelets('SELECT label, series FROM gp_gaps ORDER BY id', 10, 150, 10, 5) c
           FULL JOIN d_shp g USING (rank)
           WHERE c.source_row IS DISTINCT FROM g.source_row OR c.start IS DISTINCT FROM g.start
              OR c.length IS DISTINCT FROM g.length OR c.info_gain IS DISTINCT FROM g.info_gain
              OR c.threshold IS DISTINCT FROM g.threshold OR c.gap IS DISTINCT FROM g.gap), 0,
          'GunPoint with gaps, shapelets: CPU = configured backend');
SELECT is((SELECT ts_shapelet_tree('SELECT label, series FROM gp_gaps ORDER BY id', 10, 150, 10, logical => true)::text
                  = m::text FROM d_tree),
          true, 'GunPoint with gaps, logical tree: CPU = configured backend');

SELECT * FROM finish();
ROLLBACK;
