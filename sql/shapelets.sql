-- Shapelets on UCR GunPoint and ItalyPowerDemand: the root shapelet and the
-- test accuracy of the trees are pinned; conventions and errors.
SET extra_float_digits = 0;

-- the three best shapelets of GunPoint (lengths 10..150 by 10)
SELECT rank, source_row, start, length, round(threshold::numeric, 6) AS threshold,
       round(info_gain::numeric, 6) AS info_gain, round(gap::numeric, 6) AS gap, array_length(shapelet, 1) AS values
FROM ts_shapelets('SELECT label, series FROM ucr WHERE dataset = ''GunPoint'' AND part = ''train'' ORDER BY id', 10, 150, 10, 3);
-- a shapelet is the source row's subsequence, and its distance to that row is 0
WITH s AS (SELECT * FROM ts_shapelets('SELECT label, series FROM ucr WHERE dataset = ''GunPoint'' AND part = ''train'' ORDER BY id', 10, 150, 10)),
     r AS (SELECT row_number() OVER (ORDER BY id) AS source_row, series FROM ucr WHERE dataset = 'GunPoint' AND part = 'train')
SELECT s.shapelet = r.series[s.start:s.start + s.length - 1] AS is_subsequence,
       ts_shapelet_distance(s.shapelet, r.series) AS own_distance
FROM s JOIN r USING (source_row);
-- its split separates the training set as reported: information gain from the counts
WITH s AS (SELECT * FROM ts_shapelets('SELECT label, series FROM ucr WHERE dataset = ''GunPoint'' AND part = ''train'' ORDER BY id', 10, 150, 10))
SELECT label, count(*) FILTER (WHERE ts_shapelet_distance(s.shapelet, u.series) <= s.threshold) AS near,
       count(*) FILTER (WHERE ts_shapelet_distance(s.shapelet, u.series) > s.threshold) AS far
FROM s, ucr u WHERE u.dataset = 'GunPoint' AND u.part = 'train' GROUP BY label ORDER BY label;

-- trees: GunPoint (test accuracy 0.94), ItalyPowerDemand plain and logical
CREATE TEMP TABLE models AS
SELECT 'GunPoint' AS dataset, false AS logical,
       ts_shapelet_tree('SELECT label, series FROM ucr WHERE dataset = ''GunPoint'' AND part = ''train'' ORDER BY id', 10, 150, 10) AS model
UNION ALL
SELECT 'ItalyPowerDemand', false,
       ts_shapelet_tree('SELECT label, series FROM ucr WHERE dataset = ''ItalyPowerDemand'' AND part = ''train'' ORDER BY id', 3, 24)
UNION ALL
SELECT 'ItalyPowerDemand', true,
       ts_shapelet_tree('SELECT label, series FROM ucr WHERE dataset = ''ItalyPowerDemand'' AND part = ''train'' ORDER BY id', 3, 24, logical => true);
SELECT dataset, logical, model->'labels' AS labels, model->'root'->>'kind' AS root, model->'root'->'class_counts' AS counts,
       round((model->'root'->>'gain')::numeric, 6) AS root_gain
FROM models ORDER BY 1, 2;
SELECT m.dataset, m.logical, round(avg((ts_shapelet_classify(m.model, u.series) = u.label)::int), 4) AS test_accuracy
FROM models m JOIN ucr u ON u.dataset = m.dataset AND u.part = 'test' GROUP BY 1, 2 ORDER BY 1, 2;
-- the batch form gives the same labels
SELECT count(*) AS rows, count(*) FILTER (WHERE c.label <> ts_shapelet_classify(m.model, u.series)) AS differ
FROM models m, ts_shapelet_classify(m.model, 'SELECT id, series FROM ucr WHERE dataset = ''GunPoint'' AND part = ''test'' ORDER BY id') c
JOIN ucr u ON u.id = c.id::bigint
WHERE m.dataset = 'GunPoint';
-- max_depth 0: a single leaf with the majority label
SELECT ts_shapelet_tree('SELECT label, series FROM ucr WHERE dataset = ''GunPoint'' AND part = ''train'' ORDER BY id', 10, 150, 10, 0)->'root';

-- labels of any type, compared as text; series of different lengths
SELECT rank, source_row, start, length, round(info_gain::numeric, 6) AS info_gain
FROM ts_shapelets($$SELECT l, s FROM (VALUES
  (true,  ARRAY[0, 0, 1, 5, 1, 0, 0, 0]::float8[]), (true,  ARRAY[0, 1, 5, 1, 0, 0, 0]::float8[]),
  (false, ARRAY[0, 0, 0, -5, 0, 0, 0, 0, 0]::float8[]), (false, ARRAY[0, 0, -5, 0.5, 0, 0]::float8[])) v(l, s)$$, 3, 3);
-- distances: Definition 1, in [0, 2]; offset invariance; flat windows
SELECT round(ts_shapelet_distance(ARRAY[1, 2, 3]::float8[], ARRAY[5, 1, 2, 3, 5]::float8[])::numeric, 9) AS exact,
       round(ts_shapelet_distance(ARRAY[1, 2, 3]::float8[], ARRAY[3, 2, 1]::float8[])::numeric, 9) AS opposite,
       round(ts_shapelet_distance(ARRAY[1, 2, 3]::float8[], ARRAY[1e8 + 1, 1e8 + 2, 1e8 + 3]::float8[])::numeric, 9) AS offset,
       ts_shapelet_distance(ARRAY[1, 2, 3]::float8[], ARRAY[7, 7, 7]::float8[]) AS flat_target,
       ts_shapelet_distance(ARRAY[4, 4, 4]::float8[], ARRAY[7, 7, 7, 7]::float8[]) AS both_flat;

-- errors
SELECT * FROM ts_shapelets('SELECT label, series FROM ucr WHERE dataset = ''GunPoint'' AND part = ''train''', 1, 10);
SELECT * FROM ts_shapelets('SELECT label, series FROM ucr WHERE dataset = ''GunPoint'' AND part = ''train''', 10, 5);
SELECT * FROM ts_shapelets('SELECT label, series FROM ucr WHERE dataset = ''GunPoint'' AND part = ''train''', 5, 10, 0);
SELECT * FROM ts_shapelets('SELECT label, series FROM ucr WHERE dataset = ''GunPoint'' AND part = ''train''', 5, 10, 1, 0);
SELECT * FROM ts_shapelets('SELECT label, series FROM ucr WHERE dataset = ''GunPoint'' AND part = ''train'' AND label = ''1''', 5, 10);
SELECT * FROM ts_shapelets('SELECT label, series FROM ucr WHERE id = 1', 5, 10);
SELECT * FROM ts_shapelets($$SELECT * FROM (VALUES ('a', ARRAY[1, 2, 3, 4]::float8[]), (NULL, ARRAY[1, 2, 3, 4]::float8[])) v$$, 3, 3);
SELECT * FROM ts_shapelets($$SELECT * FROM (VALUES ('a', ARRAY[1, 2, 3, 4]::float8[]), ('b', NULL)) v$$, 3, 3);
SELECT * FROM ts_shapelets($$SELECT * FROM (VALUES ('a', ARRAY[1, 2, 3, 4]::float8[]), ('b', ARRAY[1, 'NaN', 3, 4]::float8[])) v$$, 3, 3, gaps => 'error');
SELECT * FROM ts_shapelets($$SELECT * FROM (VALUES ('a', ARRAY[1, 2, 3, 4]::float8[]), ('b', ARRAY[1, 2]::float8[])) v$$, 3, 3);
SELECT * FROM ts_shapelets('SELECT series FROM ucr', 3, 3);
SELECT * FROM ts_shapelets(NULL, 3, 3);
SELECT ts_shapelet_tree('SELECT label, series FROM ucr WHERE dataset = ''GunPoint'' AND part = ''train''', 10, 20, 10, -1);
SELECT ts_shapelet_distance(ARRAY[1, 2, 3, 4]::float8[], ARRAY[1, 2, 3]::float8[]);
SELECT ts_shapelet_distance(NULL, ARRAY[1, 2, 3]::float8[]);
SELECT ts_shapelet_classify('{"model": "something else"}', ARRAY[1, 2, 3]::float8[]);
SELECT ts_shapelet_classify('[1, 2]', ARRAY[1, 2, 3]::float8[]);
SELECT ts_shapelet_classify((SELECT model FROM models WHERE dataset = 'GunPoint') - 'labels', ARRAY[1, 2, 3]::float8[]);

-- gaps (NULL, NaN, ±Infinity; gaps => 'skip', the default): a window that
-- holds one is no candidate and has no distance; a series with no window of
-- a shapelet's length free of them is at distance 2 (the far side of every
-- split); ts_shapelet_distance is then NULL
SELECT rank, source_row, start, length, round(info_gain::numeric, 6) AS info_gain, shapelet
FROM ts_shapelets($$SELECT * FROM (VALUES ('a', ARRAY[1, 2, 3, 4]::float8[]), ('b', ARRAY[1, 'NaN', 3, 4]::float8[])) v$$, 3, 3);
SELECT rank, source_row, start, length, round(info_gain::numeric, 6) AS info_gain, shapelet
FROM ts_shapelets($$SELECT l, s FROM (VALUES
  ('up',   ARRAY[NULL, 0, 1, 5, 1, 0, 0, 0]::float8[]), ('up',   ARRAY[0, 1, 5, 1, 0, 'Infinity', 0]::float8[]),
  ('down', ARRAY[0, 0, 0, -5, 0, NULL, 0, 0, 0]::float8[]), ('down', ARRAY[0, 'NaN', -5, 0.5, 0, 0]::float8[]),
  ('down', ARRAY[NULL, NULL, NULL, NULL]::float8[])) v(l, s)$$, 3, 4, 1, 3);
SELECT round(ts_shapelet_distance(ARRAY[1, 2, 3]::float8[], ARRAY[5, NULL, 1, 2, 3, 'NaN']::float8[])::numeric, 9) AS clean_window,
       round(ts_shapelet_distance(ARRAY[1, 2, 3]::float8[], ARRAY[3, 2, 1, NULL, 1, 2, 9]::float8[])::numeric, 9) AS around_a_gap,
       ts_shapelet_distance(ARRAY[1, 2, 3]::float8[], ARRAY[1, NULL, 3, 'Infinity', 5]::float8[]) IS NULL AS every_window_a_gap,
       ts_shapelet_distance(ARRAY[1, 2, 3]::float8[], ARRAY[NULL, NULL, NULL]::float8[]) IS NULL AS all_gaps;
-- GunPoint with gaps: every 23rd value of every series NULL and a run of 12
-- NULLs in every fifth, train and test alike; the tree still trains and
-- classifies (test accuracy 0.94 on the complete data)
CREATE TEMP TABLE ucr_gaps AS
  SELECT id, part, label,
         (SELECT array_agg(CASE WHEN i % 23 = 0 OR (id % 5 = 0 AND i BETWEEN 60 AND 71) THEN NULL ELSE series[i] END ORDER BY i)
          FROM generate_subscripts(series, 1) i) AS series
  FROM ucr WHERE dataset = 'GunPoint';
CREATE TEMP TABLE gap_model AS
  SELECT ts_shapelet_tree('SELECT label, series FROM ucr_gaps WHERE part = ''train'' ORDER BY id', 10, 150, 10) AS model;
SELECT model->'root'->>'kind' AS root, model->'root'->'class_counts' AS counts,
       (SELECT bool_and(v::text <> 'null') FROM jsonb_array_elements(model->'root'->'shapelets'->0->'values') v) AS finite_shapelet
FROM gap_model;
SELECT round(avg((ts_shapelet_classify(m.model, u.series) = u.label)::int), 4) AS train_accuracy
FROM gap_model m, ucr_gaps u WHERE u.part = 'train';
SELECT round(avg((ts_shapelet_classify(m.model, u.series) = u.label)::int), 4) AS test_accuracy
FROM gap_model m, ucr_gaps u WHERE u.part = 'test';
SELECT count(*) AS rows, count(*) FILTER (WHERE c.label <> ts_shapelet_classify(m.model, u.series)) AS differ
FROM gap_model m, ts_shapelet_classify(m.model, 'SELECT id, series FROM ucr_gaps WHERE part = ''test'' ORDER BY id') c
JOIN ucr_gaps u ON u.id = c.id::bigint;
-- gaps => 'error': the errors of before
SELECT * FROM ts_shapelets($$SELECT * FROM (VALUES ('a', ARRAY[1, 2, 3, 4]::float8[]), ('b', ARRAY[1, NULL, 3, 4]::float8[])) v$$, 3, 3, gaps => 'error');
SELECT ts_shapelet_tree($$SELECT * FROM (VALUES ('a', ARRAY[1, 2, 3, 4]::float8[]), ('b', ARRAY[1, '-Infinity', 3, 4]::float8[])) v$$, 3, 3, gaps => 'error');
SELECT ts_shapelet_distance(ARRAY[1, 2, 3]::float8[], ARRAY[5, NULL, 1, 2, 3]::float8[], gaps => 'error');
SELECT ts_shapelet_classify(model, ARRAY[1, 'NaN', 3]::float8[], gaps => 'error') FROM gap_model;
SELECT * FROM ts_shapelet_classify((SELECT model FROM gap_model), 'SELECT ARRAY[1, NULL, 3]::float8[]', gaps => 'error');
-- a shapelet with a gap is an error whatever gaps says; another gaps value too
SELECT ts_shapelet_distance(ARRAY[1, NULL, 3]::float8[], ARRAY[5, 1, 2, 3]::float8[]);
SELECT ts_shapelet_distance(ARRAY[1, 'NaN', 3]::float8[], ARRAY[5, 1, 2, 3]::float8[]);
SELECT ts_shapelet_distance(ARRAY[1, 2, 3]::float8[], ARRAY[5, 1, 2, 3]::float8[], gaps => 'fill');
