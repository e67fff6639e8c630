-- The distance limits min_distance (ts_discords and its forms, the tiles and
-- the AB-join) and max_distance (ts_match): NULL means none, a NaN given is
-- refused by the core's argument checks (22023, the message of an
-- out-of-range distance), as negative and infinite ones are.
BEGIN;
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS tsmine;
SELECT plan(12);

CREATE TEMP TABLE s AS
SELECT array_agg(sin(i * 0.1) + ((i * 7919) % 1009) / 3000.0 ORDER BY i) AS a FROM generate_series(1, 400) i;

SELECT throws_ok('SELECT * FROM ts_discords((SELECT a FROM s), 10, 3, ''NaN'')', '22023',
                 'min_distance must be a finite number >= 0, not NaN', 'ts_discords: a NaN min_distance, 22023');
SELECT throws_ok('SELECT * FROM ts_discords((SELECT a FROM s), 10, 3, ''NaN'', method => ''pd3'')', '22023',
                 'min_distance must be a finite number >= 0, not NaN', 'the same with method pd3');
SELECT throws_ok('SELECT * FROM ts_discords((SELECT a FROM s), 10, NULL, ''NaN'', normalized => false)', '22023',
                 'min_distance must be a finite number >= 0, not NaN', 'the same with k NULL and raw values');
SELECT throws_ok($$SELECT * FROM ts_discords('SELECT v FROM unnest((SELECT a FROM s)) v', 10, 3, 'NaN')$$, '22023',
                 'min_distance must be a finite number >= 0, not NaN', 'the same in the query form');
SELECT throws_ok('SELECT * FROM ts_discords((SELECT a FROM s), 10, 3, ''-1'')', '22023',
                 'min_distance must be a finite number >= 0, not -1', 'a negative min_distance, 22023');
SELECT is((SELECT count(*)::int FROM ts_discords((SELECT a FROM s), 10, 3, NULL)), 3,
          'min_distance NULL: the top k discords');
SELECT throws_ok($$SELECT * FROM ts_discords_from_tiles((SELECT a FROM s),
                     (SELECT ts_matrix_profile_merge(ts_matrix_profile_tile(a, 10, t, 2)) FROM s, generate_series(1, 2) t),
                     3, 'NaN')$$, '22023',
                 'min_distance must be a finite number >= 0, not NaN', 'ts_discords_from_tiles: a NaN min_distance, 22023');
SELECT throws_ok('SELECT * FROM ts_discords_ab((SELECT a FROM s), (SELECT a[1:200] FROM s), 10, 3, ''NaN'')', '22023',
                 'min_distance must be a finite number >= 0, not NaN', 'ts_discords_ab: a NaN min_distance, 22023');
SELECT throws_ok('SELECT * FROM ts_match((SELECT a FROM s), (SELECT a[1:10] FROM s), ''NaN'')', '22023',
                 'max_distance must be a finite number >= 0, not NaN', 'ts_match: a NaN max_distance, 22023');
SELECT throws_ok('SELECT * FROM ts_match((SELECT a FROM s), (SELECT a[1:10] FROM s), ''Infinity'')', '22023',
                 'max_distance must be a finite number >= 0, not Infinity', 'an infinite max_distance, 22023');
SELECT ok((SELECT count(*) FROM ts_match((SELECT a FROM s), (SELECT a[1:10] FROM s), NULL)) > 0,
          'max_distance NULL: no limit');
SELECT is((SELECT count(*)::int FROM ts_discords((SELECT a FROM s), 10, NULL, 0.0)), 391,
          'min_distance 0: every window with a neighbour');

SELECT * FROM finish();
ROLLBACK;
