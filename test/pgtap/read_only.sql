-- Query text runs read-only: the query forms and the training and batch
-- queries accept one SELECT, and nothing they run may change data; a
-- rejected query changes nothing.  Also: input_ms after the shapelet
-- functions, and the hint of a series too short for a matrix profile.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS tsmine;
SELECT plan(17);

CREATE TABLE ro_t AS SELECT i, sin(i * 0.1) + (i = 50)::int * 10 AS v FROM generate_series(1, 200) i;
CREATE FUNCTION ro_delete_one() RETURNS float8 VOLATILE LANGUAGE plpgsql AS $$
BEGIN DELETE FROM ro_t WHERE i = 1; RETURN 1; END $$;

SELECT throws_ok($$SELECT * FROM ts_outliers('DELETE FROM ro_t RETURNING v')$$, '25006', NULL,
                 'DELETE ... RETURNING as series_sql is an error');
SELECT throws_ok($$SELECT * FROM ts_outliers('UPDATE ro_t SET v = 0 RETURNING v')$$, '25006', NULL,
                 'UPDATE ... RETURNING is an error');
SELECT throws_ok($$SELECT * FROM ts_outliers('INSERT INTO ro_t VALUES (0, 0) RETURNING v')$$, '25006', NULL,
                 'INSERT ... RETURNING is an error');
SELECT throws_ok($$SELECT * FROM ts_discords('WITH d AS (DELETE FROM ro_t RETURNING v) SELECT v FROM d', 10)$$,
                 '25006', NULL, 'a data-modifying WITH is an error');
SELECT throws_ok($$SELECT * FROM ts_outliers('SELECT v INTO TEMP ro_copy FROM ro_t')$$, '25006', NULL,
                 'SELECT INTO is an error');
SELECT is((SELECT count(*) FROM pg_class WHERE relname = 'ro_copy'), 0::bigint, 'and creates no table');
SELECT throws_ok($$SELECT * FROM ts_outliers('SELECT v FROM ro_t ORDER BY i FOR UPDATE')$$, '25006', NULL,
                 'row locks are an error');
SELECT throws_ok($$SELECT * FROM ts_outliers('SELECT ro_delete_one() FROM ro_t')$$, '25006', NULL,
                 'a function that writes, called by the query, is an error');
SELECT throws_ok($$SELECT * FROM ts_outliers('SELECT v FROM ro_t; SELECT v FROM ro_t')$$, '22023', NULL,
                 'two statements are an error');
SELECT is((SELECT count(*) FROM ro_t), 200::bigint, 'no row changed');
SELECT is((SELECT sum(v) FROM ro_t), (SELECT sum(sin(i * 0.1) + (i = 50)::int * 10) FROM generate_series(1, 200) i),
          'no value changed');
SELECT is((SELECT count(*) FROM ts_outliers('SELECT v FROM ro_t ORDER BY i', 3)), 1::bigint,
          'a plain SELECT still works');
SELECT throws_ok($$SELECT * FROM ts_shapelets('DELETE FROM ro_t RETURNING ''a'', ARRAY[v, v, v]', 3, 3)$$,
                 '25006', NULL, 'a training query that deletes is an error');
SELECT throws_ok($$SELECT * FROM ts_shapelet_classify('{}'::jsonb, 'DELETE FROM ro_t RETURNING ARRAY[v]')$$,
                 NULL, NULL, 'a batch query that deletes is an error');
SELECT is((SELECT count(*) FROM ro_t), 200::bigint, 'still no row changed');

-- input_ms after a shapelet function
SELECT count(*) FROM ts_shapelets($$SELECT l, CASE WHEN l = 'up' THEN ARRAY[1, 2, 3, 4, 5, 6]
  ELSE ARRAY[6, 5, 4, 3, 2, 1] END::float8[] FROM unnest(ARRAY['up', 'down']) l$$, 3, 3);
SELECT ok((SELECT input_ms >= 0 FROM ts_last_run()), 'ts_last_run() reports input_ms after ts_shapelets');

-- a series too short for any matrix profile: the hint says so (not "Use m <= 0")
CREATE FUNCTION pg_temp.hint_of(sql text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE h text;
BEGIN
  EXECUTE sql;
  RETURN NULL;
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS h = PG_EXCEPTION_HINT;
  RETURN h;
END $$;
SELECT alike(pg_temp.hint_of($$SELECT * FROM ts_matrix_profile('{1}'::float8[], 3)$$), '%too short%',
            'a one-value series: the hint says the series is too short');

SELECT * FROM finish();
DROP FUNCTION ro_delete_one();
DROP TABLE ro_t;
