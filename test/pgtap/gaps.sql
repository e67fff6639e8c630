-- Gaps (issue #11 item 2): NULL, NaN and ±Infinity values are gaps by
-- default.  Properties on a sine with gaps against the same series without
-- them (a window that holds a gap has no distance and is no one's neighbour;
-- the others keep their distance unless their neighbour held a gap, and then
-- only move away), every form (array, query, timed array, timed query,
-- tiles), and the SQLSTATEs of gaps => 'error' and of a bad gaps value.
BEGIN;
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS tsmine;
SELECT plan(41);

CREATE TEMP TABLE sig AS
  SELECT i, sin(i * 0.21) + 0.3 * sin(i * 1.3) + CASE WHEN i BETWEEN 700 AND 712 THEN 1.5 ELSE 0 END AS v
  FROM generate_series(1, 1200) i;
-- gaps: NULL rows, a NaN, an Infinity, a run of NULLs
CREATE TEMP TABLE holed AS
  SELECT i, CASE WHEN i % 150 = 17 OR i BETWEEN 400 AND 430 THEN NULL WHEN i = 903 THEN 'NaN'::float8
                 WHEN i = 1001 THEN '-Infinity'::float8 ELSE v END AS v
  FROM sig;
CREATE TEMP TABLE clean AS SELECT * FROM ts_matrix_profile((SELECT array_agg(v ORDER BY i) FROM sig), 20);
CREATE TEMP TABLE prof AS SELECT * FROM ts_matrix_profile((SELECT array_agg(v ORDER BY i) FROM holed), 20);
-- window p holds a gap
CREATE FUNCTION pg_temp.has_gap(p bigint) RETURNS bool AS $$
  SELECT EXISTS (SELECT 1 FROM holed WHERE i BETWEEN p AND p + 19 AND (v IS NULL OR v = 'NaN' OR v = '-Infinity'))
$$ LANGUAGE sql;

SELECT is((SELECT count(*)::int FROM prof), (SELECT count(*)::int FROM clean), 'positions count every row');
SELECT is((SELECT count(*)::int FROM prof WHERE pg_temp.has_gap(pos) <> (distance IS NULL)), 0,
          'a window has NULL distance exactly when it holds a gap');
SELECT is((SELECT count(*)::int FROM prof WHERE (neighbor IS NULL) <> (distance IS NULL)), 0,
          '... and then a NULL neighbour');
SELECT is((SELECT count(*)::int FROM prof WHERE neighbor IS NOT NULL AND pg_temp.has_gap(neighbor)), 0,
          'no window has a neighbour that holds a gap');
SELECT is((SELECT count(*)::int FROM prof p JOIN clean c USING (pos)
           WHERE p.distance IS NOT NULL AND p.distance < c.distance - 1e-9), 0,
          'no window comes nearer to its neighbour than without the gaps');
SELECT is((SELECT count(*)::int FROM prof p JOIN clean c USING (pos)
           WHERE p.distance IS NOT NULL AND NOT pg_temp.has_gap(c.neighbor)
             AND (p.neighbor <> c.neighbor OR abs(p.distance - c.distance) > 1e-9 * c.distance)), 0,
          'a window whose neighbour holds no gap keeps it, and its distance');

-- every form gives the same profile
SELECT is((SELECT array_agg(distance ORDER BY pos)::text FROM ts_matrix_profile('SELECT v FROM holed ORDER BY i', 20)),
          (SELECT array_agg(distance ORDER BY pos)::text FROM prof), 'the query form');
SELECT is((SELECT array_agg(neighbor ORDER BY pos)::text
           FROM ts_matrix_profile((SELECT array_agg(i ORDER BY i) FROM holed), (SELECT array_agg(v ORDER BY i) FROM holed), 20)),
          (SELECT array_agg(neighbor ORDER BY pos)::text FROM prof), 'the timed array form');
SELECT is((SELECT array_agg(neighbor_time ORDER BY pos)::text FROM ts_matrix_profile(NULL::int, 'SELECT i, v FROM holed ORDER BY i', 20)),
          (SELECT array_agg(neighbor ORDER BY pos)::text FROM prof), 'the timed query form (times = positions)');
SELECT is((SELECT distance::text FROM ts_matrix_profile_arrays((SELECT array_agg(v ORDER BY i) FROM holed), 20)),
          (SELECT array_agg(distance ORDER BY pos)::text FROM prof), 'ts_matrix_profile_arrays (NULL elements)');
-- made in place (src/glue/discords.c): the very bytes array_agg makes of the rows (*=: binary images)
SELECT ok((SELECT a *= r
           FROM (SELECT distance, neighbor FROM ts_matrix_profile_arrays((SELECT array_agg(v ORDER BY i) FROM holed), 20)) a,
                (SELECT array_agg(distance ORDER BY pos) AS distance, array_agg(neighbor ORDER BY pos) AS neighbor FROM prof) r),
          'ts_matrix_profile_arrays: the arrays of the rows, byte for byte (NULL bitmap included)');
-- an array whose last NULL lies in a last, partial byte of its null bitmap (1203 values)
SELECT is((SELECT array_agg(distance ORDER BY pos)::text
           FROM ts_matrix_profile((SELECT array_agg(v ORDER BY i) || ARRAY[0.5, NULL, 0.7]::float8[] FROM holed), 20)),
          (SELECT array_agg(distance ORDER BY pos)::text
           FROM ts_matrix_profile('SELECT v FROM (SELECT i, v FROM holed UNION ALL VALUES (1201, 0.5), (1202, NULL), (1203, 0.7)) s ORDER BY i', 20)),
          'an array with a NULL in its last, partial bitmap byte = the query form');
-- series with gaps, one after the other in one query (each filled into the buffer
-- src/glue/input.c keeps, or into per-query memory while it is taken)
SELECT is((SELECT array_agg(p.distance::text ORDER BY h.k)
           FROM (VALUES (1), (-1)) h(k),
                LATERAL ts_matrix_profile_arrays((SELECT array_agg(v ORDER BY i * h.k) FROM holed), 20) p),
          ARRAY[(SELECT distance::text FROM ts_matrix_profile_arrays((SELECT array_agg(v ORDER BY i DESC) FROM holed), 20)),
                (SELECT distance::text FROM ts_matrix_profile_arrays((SELECT array_agg(v ORDER BY i) FROM holed), 20))],
          'two series with gaps in one query: each its own profile');
SELECT is((SELECT array_agg(neighbor ORDER BY pos)::text
           FROM ts_matrix_profile_from_tiles((SELECT array_agg(v ORDER BY i) FROM holed),
                  (SELECT ts_matrix_profile_merge(ts_matrix_profile_tile((SELECT array_agg(v ORDER BY i) FROM holed), 20, t, 4))
                   FROM generate_series(1, 4) t))),
          (SELECT array_agg(neighbor ORDER BY pos)::text FROM prof), 'the tiles, merged');

-- discords, motifs, matches: never a window with a gap, the same by every method
CREATE TEMP TABLE disc AS SELECT * FROM ts_discords('SELECT v FROM holed ORDER BY i', 20, 3);
SELECT is((SELECT count(*)::int FROM disc WHERE pg_temp.has_gap(pos) OR pg_temp.has_gap(neighbor)), 0,
          'no discord or discord neighbour holds a gap');
SELECT ok((SELECT pos FROM disc WHERE rank = 1) BETWEEN 681 AND 712, 'the planted bump is the first discord');
SELECT is((SELECT array_agg(format('%s %s %s', pos, distance, neighbor) ORDER BY rank)
           FROM ts_discords('SELECT v FROM holed ORDER BY i', 20, 3, method => 'pd3')),
          (SELECT array_agg(format('%s %s %s', pos, distance, neighbor) ORDER BY rank) FROM disc),
          'pd3 gives the same discords');
SELECT is((SELECT array_agg(format('%s %s %s', pos, distance, neighbor) ORDER BY rank)
           FROM ts_discords_from_tiles((SELECT array_agg(v ORDER BY i) FROM holed),
                  ts_matrix_profile_tile((SELECT array_agg(v ORDER BY i) FROM holed), 20, 1, 1, 20), 3)),
          (SELECT array_agg(format('%s %s %s', pos, distance, neighbor) ORDER BY rank) FROM disc),
          'ts_discords_from_tiles gives the same discords');
CREATE TEMP TABLE mot AS SELECT * FROM ts_motifs('SELECT v FROM holed ORDER BY i', 20, 3, method => 'matrix_profile');
SELECT is((SELECT count(*)::int FROM mot WHERE pg_temp.has_gap(pos_a) OR pg_temp.has_gap(pos_b)), 0,
          'no motif member holds a gap');
SELECT is((SELECT count(*)::int FROM mot), 3, '... and there are 3 pairs');
SELECT is((SELECT array_agg(format('%s %s %s', pos_a, pos_b, distance) ORDER BY rank)
           FROM ts_motifs('SELECT v FROM holed ORDER BY i', 20, 3, method => 'mk')),
          (SELECT array_agg(format('%s %s %s', pos_a, pos_b, distance) ORDER BY rank) FROM mot),
          'mk gives the same motifs');
SELECT is((SELECT count(*)::int FROM ts_match('SELECT v FROM holed ORDER BY i', (SELECT array_agg(v ORDER BY i) FROM sig WHERE i BETWEEN 100 AND 119)) m
           WHERE pg_temp.has_gap(m.pos)), 0, 'no match holds a gap');
SELECT is((SELECT pos FROM ts_match('SELECT v FROM holed ORDER BY i', (SELECT array_agg(v ORDER BY i) FROM sig WHERE i BETWEEN 100 AND 119)) m
           WHERE rank = 1), 100::bigint, '... and the pattern''s own window matches first');

-- outliers: over the finite values alone, at their positions
SELECT is((SELECT array_agg(format('%s %s', pos, zscore) ORDER BY pos) FROM ts_outliers('SELECT v FROM holed ORDER BY i', 2)),
          (SELECT array_agg(format('%s %s', f.i, o.zscore) ORDER BY o.pos)
           FROM (SELECT row_number() OVER (ORDER BY i) AS k, i, v FROM holed WHERE v IS NOT NULL AND v NOT IN ('NaN', '-Infinity')) f
           JOIN ts_outliers((SELECT array_agg(v ORDER BY i) FROM holed WHERE v IS NOT NULL AND v NOT IN ('NaN', '-Infinity')), 2) o
             ON o.pos = f.k),
          'outliers skip the gaps: those of the finite values, at their own positions');

-- gaps => 'error': the errors of a series without the gaps argument
SELECT throws_ok($$SELECT * FROM ts_matrix_profile(ARRAY[1, NULL, 3, 4, 5, 6]::float8[], 3, gaps => 'error')$$, '22004',
                 'series contains a NULL at position 2', 'gaps => error: a NULL element (22004)');
SELECT throws_ok($$SELECT * FROM ts_discords('SELECT v FROM (VALUES (1.0), (''NaN''), (3), (4), (5), (6)) t(v)', 3, gaps => 'error')$$,
                 '22000', 'series_sql contains NaN at row 2', 'gaps => error: a NaN row (22000)');
SELECT throws_ok($$SELECT * FROM ts_motifs(ARRAY[1, 2, 3, 4, 5, 6, 7, 8], ARRAY[1, 2, 'Infinity', 4, 5, 6, 7, 8]::float8[], 3, gaps => 'error')$$,
                 '22000', 'series contains Infinity at position 3', 'gaps => error: the timed array form');
SELECT throws_ok($$SELECT * FROM ts_outliers(NULL::int, 'SELECT i, v FROM (VALUES (1, 1.0), (2, NULL)) t(i, v) ORDER BY i', gaps => 'error')$$,
                 '22004', NULL, 'gaps => error: the timed query form');
SELECT throws_ok($$SELECT ts_matrix_profile_tile(ARRAY[1, 2, 3, 'NaN', 5, 6, 7, 8]::float8[], 3, 1, 2, gaps => 'error')$$,
                 '22000', NULL, 'gaps => error: ts_matrix_profile_tile');
SELECT throws_ok($$SELECT * FROM ts_match(ARRAY[1, 2, 3, 4, 5]::float8[], ARRAY[1, NULL, 3]::float8[])$$, '22004', NULL,
                 'a pattern with a gap is an error whatever gaps says');
SELECT throws_ok($$SELECT * FROM ts_discords(ARRAY[1, 2, 3, 4, 5, 6]::float8[], 3, gaps => 'interpolate')$$, '22023',
                 'unknown gaps "interpolate"', 'gaps must be skip or error (22023)');
SELECT throws_ok($$SELECT * FROM ts_matrix_profile_arrays(ARRAY[1, 2, 3, 4, 5, 6]::float8[], 3, gaps => NULL)$$, '22004',
                 'gaps must not be NULL', 'gaps must not be NULL (22004)');
SELECT lives_ok($$SELECT * FROM ts_motifs_from_tiles(array_fill(NULL::float8, ARRAY[40]),
                    ts_matrix_profile_tile(array_fill(NULL::float8, ARRAY[40]), 4, 1, 1, 4))$$,
                'a series of gaps alone gives no rows, no error');

-- with normalized => false (raw-value distances) the same properties hold,
-- and gaps stays the last argument, after normalized
CREATE TEMP TABLE clean_raw AS
  SELECT * FROM ts_matrix_profile((SELECT array_agg(v ORDER BY i) FROM sig), 20, normalized => false);
CREATE TEMP TABLE prof_raw AS
  SELECT * FROM ts_matrix_profile((SELECT array_agg(v ORDER BY i) FROM holed), 20, NULL, false, 'skip');
SELECT is((SELECT count(*)::int FROM prof_raw WHERE pg_temp.has_gap(pos) <> (distance IS NULL)), 0,
          'raw values: a window has NULL distance exactly when it holds a gap');
SELECT is((SELECT count(*)::int FROM prof_raw WHERE neighbor IS NOT NULL AND pg_temp.has_gap(neighbor)), 0,
          'raw values: no window has a neighbour that holds a gap');
SELECT is((SELECT count(*)::int FROM prof_raw p JOIN clean_raw c USING (pos)
           WHERE p.distance IS NOT NULL AND NOT pg_temp.has_gap(c.neighbor)
             AND (p.neighbor <> c.neighbor OR abs(p.distance - c.distance) > 1e-9 * c.distance)), 0,
          'raw values: a window whose neighbour held no gap keeps neighbour and distance');
SELECT is((SELECT count(*)::int FROM ts_discords((SELECT array_agg(v ORDER BY i) FROM holed), 20, 3,
                                                 normalized => false) d
           WHERE pg_temp.has_gap(d.pos) OR pg_temp.has_gap(d.neighbor)), 0,
          'raw values: no discord and no discord''s neighbour holds a gap');
SELECT is((SELECT count(*)::int FROM ts_motifs('SELECT v FROM holed ORDER BY i', 20, 3, normalized => false) t
           WHERE pg_temp.has_gap(t.pos_a) OR pg_temp.has_gap(t.pos_b)), 0,
          'raw values: no motif member holds a gap');
SELECT is((SELECT count(*)::int FROM ts_match((SELECT array_agg(v ORDER BY i) FROM holed),
                                              (SELECT array_agg(v ORDER BY i) FROM sig WHERE i BETWEEN 500 AND 519),
                                              NULL, 5, NULL, false) t
           WHERE pg_temp.has_gap(t.pos)), 0,
          'raw values: no match holds a gap');
SELECT throws_ok($$SELECT * FROM ts_matrix_profile((SELECT array_agg(v ORDER BY i) FROM holed), 20, NULL, false, 'error')$$,
                 '22004', NULL, 'gaps => ''error'' after normalized => false rejects a NULL');
SELECT throws_ok($$SELECT * FROM ts_matrix_profile_tile(ARRAY[1, 2, 'NaN', 4, 5, 6, 7, 8, 9]::float8[], 3, 1, 1, NULL,
                                                        false, 'error')$$,
                 '22000', NULL, 'the tile''s gaps => ''error'' (after normalized) rejects a NaN');

SELECT * FROM finish();
ROLLBACK;
