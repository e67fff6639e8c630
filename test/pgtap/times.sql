-- The timed forms: for every series function and every time type
-- (timestamptz, timestamp, date, bigint, integer), the timed array form
-- returns the rows of the plain form with the times of their positions, and
-- the timed query form returns the rows of the timed array form.  Then the
-- errors (SQLSTATEs) and how PostgreSQL resolves the overloads (markings:
-- 00_markings.sql).
BEGIN;
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS tsmine;
SELECT plan(94);

-- 600 values: a sine with a distorted stretch (a discord), a spike (an outlier), repeats (motifs)
CREATE TEMP TABLE base AS
  SELECT i, sin(i * 0.2) + CASE WHEN i BETWEEN 300 AND 312 THEN 0.7 * (i % 3) ELSE 0 END
            + CASE WHEN i = 450 THEN 9 ELSE 0 END AS v
  FROM generate_series(1, 600) i;

-- the time types and irregular times of each (gaps differ from row to row)
CREATE TEMP TABLE time_types (type text PRIMARY KEY, expr text NOT NULL);
INSERT INTO time_types VALUES
  ('timestamptz', $$timestamptz '2024-03-30 00:00+00' + (i * 60 + i % 7) * interval '1 minute'$$),
  ('timestamp', $$timestamp '2024-01-01' + (i * 5 + i % 3) * interval '1 minute'$$),
  ('date', $$date '2020-01-01' + i * 2 + i % 2$$),
  ('bigint', $$1700000000000::bigint + i * 1000 + i % 11$$),
  ('integer', $$(i * 3 + i % 2)::integer$$);

-- per type: rows (tt_TYPE: t, v) and one row of arrays (ta_TYPE: t, v)
DO $$
DECLARE r record;
BEGIN
  FOR r IN SELECT * FROM time_types LOOP
    EXECUTE format('CREATE TEMP TABLE %I AS SELECT %s AS t, v FROM base', 'tt_' || r.type, r.expr);
    EXECUTE format('CREATE TEMP TABLE %I AS SELECT array_agg(t ORDER BY t) AS t, array_agg(v ORDER BY t) AS v FROM %I',
                   'ta_' || r.type, 'tt_' || r.type);
  END LOOP;
END $$;

-- the checks, per function: the timed array form and the plain form over the
-- arrays of a type (%1$I: ta_TYPE a), the plain columns with the expected
-- times a.t[...], and the timed query form (%2$s: the type, %3$L: the query)
CREATE TEMP TABLE checks (fn text PRIMARY KEY, timed text, plain text, timed_query text, ord text);
INSERT INTO checks VALUES
  ('ts_matrix_profile',
   'SELECT pos, distance, neighbor, start_time, neighbor_time FROM %1$I a, ts_matrix_profile(a.t, a.v, 20)',
   'SELECT p.pos, p.distance, p.neighbor, a.t[p.pos], a.t[p.neighbor] FROM %1$I a, ts_matrix_profile(a.v, 20) p',
   'SELECT pos, distance, neighbor, start_time, neighbor_time FROM ts_matrix_profile(NULL::%2$s, %3$L, 20)',
   'ORDER BY 1'),
  ('ts_matrix_profile_arrays',
   'SELECT distance, neighbor, start_time, neighbor_time FROM %1$I a, ts_matrix_profile_arrays(a.t, a.v, 20)',
   'SELECT p.distance, p.neighbor, a.t[1:cardinality(p.distance)],
           (SELECT array_agg(a.t[n] ORDER BY o) FROM unnest(p.neighbor) WITH ORDINALITY u(n, o))
    FROM %1$I a, ts_matrix_profile_arrays(a.v, 20) p',
   'SELECT distance, neighbor, start_time, neighbor_time FROM ts_matrix_profile_arrays(NULL::%2$s, %3$L, 20)',
   ''),
  ('ts_discords',
   'SELECT rank, pos, distance, neighbor, start_time, neighbor_time FROM %1$I a, ts_discords(a.t, a.v, 20, 3)',
   'SELECT d.rank, d.pos, d.distance, d.neighbor, a.t[d.pos], a.t[d.neighbor] FROM %1$I a, ts_discords(a.v, 20, 3) d',
   'SELECT rank, pos, distance, neighbor, start_time, neighbor_time FROM ts_discords(NULL::%2$s, %3$L, 20, 3)',
   'ORDER BY 1'),
  ('ts_motifs',
   'SELECT rank, pos_a, pos_b, distance, time_a, time_b FROM %1$I a, ts_motifs(a.t, a.v, 20, 2)',
   'SELECT m.rank, m.pos_a, m.pos_b, m.distance, a.t[m.pos_a], a.t[m.pos_b] FROM %1$I a, ts_motifs(a.v, 20, 2) m',
   'SELECT rank, pos_a, pos_b, distance, time_a, time_b FROM ts_motifs(NULL::%2$s, %3$L, 20, 2)',
   'ORDER BY 1'),
  ('ts_match',
   'SELECT rank, pos, distance, start_time FROM %1$I a, ts_match(a.t, a.v, a.v[100:119], k => 3)',
   'SELECT m.rank, m.pos, m.distance, a.t[m.pos] FROM %1$I a, ts_match(a.v, a.v[100:119], k => 3) m',
   'SELECT rank, pos, distance, start_time FROM ts_match(NULL::%2$s, %3$L, (SELECT v[100:119] FROM ta_integer), k => 3)',
   'ORDER BY 1'),
  ('ts_outliers',
   'SELECT pos, value, zscore, time FROM %1$I a, ts_outliers(a.t, a.v, 3)',
   'SELECT o.pos, o.value, o.zscore, a.t[o.pos] FROM %1$I a, ts_outliers(a.v, 3) o',
   'SELECT pos, value, zscore, time FROM ts_outliers(NULL::%2$s, %3$L, 3)',
   'ORDER BY 1');

-- timed array form = plain form + the times of its positions
SELECT results_eq(
  format(c.timed, 'ta_' || t.type) || ' ' || c.ord,
  format(c.plain, 'ta_' || t.type) || ' ' || c.ord,
  format('%s(times %s[], series): the plain rows with the times of their positions', c.fn, t.type))
FROM checks c CROSS JOIN time_types t ORDER BY c.fn, t.type;

-- timed query form = timed array form
SELECT results_eq(
  format(c.timed_query, NULL, t.type, format('SELECT t, v FROM %I ORDER BY t', 'tt_' || t.type)) || ' ' || c.ord,
  format(c.timed, 'ta_' || t.type) || ' ' || c.ord,
  format('%s(NULL::%s, ''SELECT t, v ...''): the rows of the timed array form', c.fn, t.type))
FROM checks c CROSS JOIN time_types t ORDER BY c.fn, t.type;

-- the checks found rows to compare
SELECT cmp_ok((SELECT count(*)::int FROM ts_discords((SELECT t FROM ta_date), (SELECT v FROM ta_date), 20, 3)), '=', 3,
              'ts_discords with times returns its 3 discords');
SELECT is((SELECT start_time FROM ts_discords((SELECT t FROM ta_timestamp), (SELECT v FROM ta_timestamp), 20)),
          (SELECT t FROM tt_timestamp ORDER BY t OFFSET 296 LIMIT 1),
          'the top discord starts at the time of row 297, in the distorted stretch');
SELECT is((SELECT time FROM ts_outliers((SELECT t FROM ta_bigint), (SELECT v FROM ta_bigint), 3) WHERE pos = 450),
          (SELECT t FROM tt_bigint ORDER BY t OFFSET 449 LIMIT 1), 'the spike''s time is that of row 450');

-- ts_shapelets with times: training rows (label, times, series)
CREATE TEMP TABLE train AS
  SELECT id, CASE WHEN id % 2 = 0 THEN 'spike' ELSE 'step' END AS label,
         (SELECT array_agg(0.3 * sin(i * 0.7 + id)
                           + coalesce((CASE WHEN id % 2 = 0 THEN ARRAY[0.5, 1.5, 3, 1.5, 0.5]
                                            ELSE ARRAY[2, 2, 2, 2, 2] END)[i - (4 + id % 7 * 3) + 1], 0) ORDER BY i)
          FROM generate_series(1, 40) i) AS series
  FROM generate_series(1, 12) id;
SELECT results_eq(
  format($$SELECT rank, source_row, start, length, threshold, start_time
           FROM ts_shapelets(NULL::%s, %L, 4, 8, 2, 3) ORDER BY rank$$,
         t.type,
         format('SELECT label, (SELECT array_agg(%s ORDER BY i) FROM generate_series(id * 100 + 1, id * 100 + 40) i), series
                 FROM train ORDER BY id', t.expr)),
  format($$SELECT s.rank, s.source_row, s.start, s.length, s.threshold, y.start_time
           FROM ts_shapelets('SELECT label, series FROM train ORDER BY id', 4, 8, 2, 3) s,
                LATERAL (SELECT %s AS start_time FROM (SELECT (s.source_row * 100 + s.start)::int AS i) x) y
           ORDER BY rank$$, t.expr),
  format('ts_shapelets(NULL::%s, (label, times, series)): the plain shapelets with the time each starts at', t.type))
FROM time_types t ORDER BY t.type;

-- ts_shapelet_tree with a (label, times, series) training query: the same tree, its shapelets with start_time
SELECT results_eq(
  format($$SELECT sh->'source_row', sh->'start', sh->'length', sh->'start_time'
           FROM jsonb_path_query(ts_shapelet_tree(%L, 4, 8, 2), 'strict $.**.shapelets[*]') sh$$,
         format('SELECT label, (SELECT array_agg(%s ORDER BY i) FROM generate_series(id * 100 + 1, id * 100 + 40) i), series
                 FROM train ORDER BY id', t.expr)),
  format($$SELECT sh->'source_row', sh->'start', sh->'length', y.start_time
           FROM jsonb_path_query(ts_shapelet_tree('SELECT label, series FROM train ORDER BY id', 4, 8, 2),
                                 'strict $.**.shapelets[*]') sh,
                LATERAL (SELECT to_jsonb(%s) AS start_time
                         FROM (SELECT ((sh->>'source_row')::int * 100 + (sh->>'start')::int)::int AS i) x) y$$, t.expr),
  format('ts_shapelet_tree over (label, %s[], series) rows: the plain tree''s shapelets, each with its start_time', t.type))
FROM time_types t ORDER BY t.type;
SELECT cmp_ok((SELECT count(*)::int FROM jsonb_path_query(
                 ts_shapelet_tree('SELECT label, series FROM train ORDER BY id', 4, 8, 2), 'strict $.**.shapelets[*]')),
              '>', 0, 'the tree has shapelets to compare');

-- errors
SELECT throws_ok($$SELECT * FROM ts_discords(ARRAY[1, 2, 3], ARRAY[1, 2, 3, 4]::float8[], 3)$$, '22023', NULL,
                 'times and series of different lengths → 22023');
SELECT throws_ok($$SELECT * FROM ts_outliers(ARRAY[1, NULL, 3], ARRAY[1, 2, 3]::float8[])$$, '22004', NULL,
                 'a NULL time → 22004');
SELECT throws_ok($$SELECT * FROM ts_outliers(ARRAY[1, 3, 2], ARRAY[1, 2, 3]::float8[])$$, '22000',
                 'times must be strictly increasing: position 3 (2) is not after position 2 (3)',
                 'times not increasing → 22000, naming the positions and times');
SELECT throws_ok($$SELECT * FROM ts_outliers(ARRAY[1, 2, 2], ARRAY[1, 2, 3]::float8[])$$, '22000', NULL,
                 'equal times → 22000');
SELECT throws_ok($$SELECT * FROM ts_outliers(ARRAY[[1, 2], [3, 4]], ARRAY[1, 2, 3, 4]::float8[])$$, '22000', NULL,
                 'a two-dimensional times array → 22000');
SELECT throws_ok($$SELECT * FROM ts_outliers(ARRAY[1.5, 2.5], ARRAY[1, 2]::float8[])$$, '42804', NULL,
                 'times of an unsupported type → 42804');
SELECT throws_ok($$SELECT * FROM ts_outliers(NULL::int[], ARRAY[1, 2]::float8[])$$, '22004', NULL,
                 'times NULL → 22004');
SELECT throws_ok($$SELECT * FROM ts_outliers(NULL::timestamptz, 'SELECT t, v FROM tt_timestamptz ORDER BY t DESC')$$,
                 '22000', NULL, 'a query not ordered by time → 22000');
SELECT throws_ok($$SELECT * FROM ts_outliers(NULL::timestamptz, 'SELECT NULL::timestamptz, 1::float8')$$, '22004', NULL,
                 'a NULL time in the query → 22004');
SELECT throws_ok($$SELECT * FROM ts_outliers(NULL::timestamptz, 'SELECT v FROM tt_timestamptz')$$, '42804', NULL,
                 'a timed query of one column → 42804');
SELECT throws_ok($$SELECT * FROM ts_outliers(NULL::timestamp, 'SELECT t, v FROM tt_timestamptz ORDER BY t')$$, '42804',
                 'the query in series_sql returns times of type timestamp with time zone, but time_type is timestamp without time zone',
                 'a time column of another type than time_type → 42804');
SELECT throws_ok($$SELECT * FROM ts_outliers(NULL::numeric, 'SELECT 1.5, 1::float8')$$, '42804', NULL,
                 'time_type of an unsupported type → 42804');
SELECT throws_ok($$SELECT * FROM ts_outliers(NULL::date, 'SELECT t, ''x''::text FROM tt_date ORDER BY t')$$, '42804', NULL,
                 'a timed query whose value is not numeric → 42804');
SELECT throws_ok($$SELECT * FROM ts_shapelets(NULL::date, 'SELECT label, series FROM train', 4, 8)$$, '42804', NULL,
                 'a timed training query of two columns → 42804');
SELECT throws_ok($$SELECT * FROM ts_shapelets(NULL::int, 'SELECT label, ARRAY[1, 2], series FROM train', 4, 8)$$,
                 '22023', NULL, 'training times of another length than their series → 22023');
SELECT throws_ok($$SELECT * FROM ts_shapelets(NULL::bigint, 'SELECT label, (SELECT array_agg(i) FROM generate_series(1, 40) i), series FROM train', 4, 8)$$,
                 '42804', NULL, 'training times of another type than time_type → 42804');

-- how PostgreSQL resolves the overloads
SELECT is((SELECT count(*)::int FROM ts_outliers(ARRAY[1, 2, 3, 4, 5, 6, 7, 8, 9, 100]::float8[], 2)), 1,
          'ts_outliers(float8[], k) is still the plain array form');
SELECT is((SELECT pg_typeof(start_time)::text FROM ts_discords((SELECT t[1:8] FROM ta_timestamptz), '{1,2,3,1,2,3,4,1}', 3)
           LIMIT 1), 'timestamp with time zone',
          'an untyped series literal beside a times array takes the timed array form');
SELECT throws_ok($$SELECT * FROM ts_discords('{1,2,3,4}', '{1,2,3,4}', 3)$$, '42725', NULL,
                 'untyped times and series literals are ambiguous: the times need a cast');
SELECT is((SELECT count(*)::int FROM ts_discords('{2020-01-01,2020-01-02,2020-01-03,2020-01-04,2020-01-05,2020-01-06}'::date[],
                                                 '{1,2,3,1,2,4}', 3)), 1,
          'a typed times literal and an untyped series literal take the timed array form');

SELECT * FROM finish();
ROLLBACK;
