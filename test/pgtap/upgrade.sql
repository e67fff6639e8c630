-- Updates: a database that installed the released 0.1.0 (versions/), with a
-- user's objects that depend on its functions (views over ts_discords, a
-- stored shapelet model and a view that classifies with it, an expression
-- index), runs ALTER EXTENSION tsmine UPDATE.  Then the objects still work
-- and give the same rows, and the catalogue of the updated extension equals
-- that of a fresh install of the current version: same functions,
-- signatures, argument names and defaults, result types, volatility,
-- strictness, parallel safety, cost and rows, C symbols, comments, and the
-- functions and state of aggregates.  A
-- change to extension/*.sql without its update script fails here.
BEGIN;
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pgtap;
DROP EXTENSION IF EXISTS tsmine;
SELECT plan(22);

-- The catalogue of the installed tsmine, one text row per fact.
CREATE FUNCTION pg_temp.tsmine_catalogue() RETURNS SETOF text LANGUAGE sql AS $$
  SELECT format('extension %s: relocatable %s, schema %s, config %s', e.extname, e.extrelocatable,
                e.extnamespace::regnamespace, e.extconfig)
  FROM pg_extension e WHERE e.extname = 'tsmine'
  UNION ALL
  SELECT format('function %s(%s) | arguments %s | returns %s | kind %s, %s, strict %s, parallel %s, '
                'security definer %s, leakproof %s, cost %s, rows %s | %s %s %s | config %s | comment %s',
                p.proname, pg_get_function_identity_arguments(p.oid), pg_get_function_arguments(p.oid),
                pg_get_function_result(p.oid), p.prokind, p.provolatile, p.proisstrict, p.proparallel,
                p.prosecdef, p.proleakproof, p.procost, p.prorows, l.lanname, p.probin, p.prosrc,
                p.proconfig, obj_description(p.oid, 'pg_proc'))
  FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'tsmine'
       JOIN pg_proc p ON d.classid = 'pg_proc'::regclass AND p.oid = d.objid
       JOIN pg_language l ON l.oid = p.prolang
  WHERE d.deptype = 'e'
  UNION ALL
  SELECT format('aggregate %s | transition %s, combine %s, final %s, state %s, initial %s',
                a.aggfnoid::regprocedure, a.aggtransfn::regprocedure, a.aggcombinefn::regprocedure,
                a.aggfinalfn::regprocedure, a.aggtranstype::regtype, a.agginitval)
  FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'tsmine'
       JOIN pg_aggregate a ON d.classid = 'pg_proc'::regclass AND a.aggfnoid = d.objid
  WHERE d.deptype = 'e'
  UNION ALL
  -- members that are not functions (types, casts, operators, tables, ...)
  SELECT format('member %s | comment %s', pg_describe_object(d.classid, d.objid, d.objsubid),
                obj_description(d.objid, c.relname))
  FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'tsmine'
       JOIN pg_class c ON c.oid = d.classid
  WHERE d.deptype = 'e' AND d.classid <> 'pg_proc'::regclass
$$;

-- a fresh install of the current version
CREATE EXTENSION tsmine;
SELECT is((SELECT extversion FROM pg_extension WHERE extname = 'tsmine'),
          (SELECT default_version FROM pg_available_extensions WHERE name = 'tsmine'),
          'a fresh install is of the default version');
CREATE TEMP TABLE fresh_catalogue AS SELECT * FROM pg_temp.tsmine_catalogue() AS fact;
DROP EXTENSION tsmine;

-- the released 0.1.0: its C functions are checked against the library as they are created
SELECT lives_ok($$CREATE EXTENSION tsmine VERSION '0.1.0'$$,
                'the 0.1.0 script installs: the library has every C symbol it names');
SELECT is((SELECT extversion FROM pg_extension WHERE extname = 'tsmine'), '0.1.0', 'version 0.1.0 is installed');
SELECT is((SELECT count(*)::int FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'tsmine'
           WHERE d.deptype = 'e' AND d.classid = 'pg_proc'::regclass),
          19, '0.1.0 has its 19 functions');

-- a user's objects on 0.1.0
CREATE TABLE readings (pos int PRIMARY KEY, v float8 NOT NULL);
INSERT INTO readings
SELECT i, sin(i / 10.0) + CASE WHEN i BETWEEN 300 AND 310 THEN 1 ELSE 0 END FROM generate_series(1, 600) i;
CREATE VIEW reading_discords AS
  SELECT d.rank, d.pos, d.distance, d.neighbor
  FROM ts_discords((SELECT array_agg(v ORDER BY pos) FROM readings), 20, 2) d;
CREATE VIEW reading_discords_query AS
  SELECT d.rank, d.pos, d.distance FROM ts_discords('SELECT v FROM readings ORDER BY pos', 20, 2) d;
CREATE VIEW reading_profile AS
  SELECT p.pos, p.distance, p.neighbor FROM ts_matrix_profile((SELECT array_agg(v ORDER BY pos) FROM readings), 20) p;
CREATE VIEW reading_outliers AS
  SELECT o.pos, o.value, o.zscore FROM ts_outliers('SELECT v FROM readings ORDER BY pos', 2.0) o;

CREATE TABLE shapes (id int PRIMARY KEY, part text NOT NULL, label text NOT NULL, series float8[] NOT NULL);
INSERT INTO shapes
SELECT id, CASE WHEN id % 5 = 0 THEN 'test' ELSE 'train' END,
       CASE WHEN id % 2 = 0 THEN 'spike' ELSE 'step' END,
       (SELECT array_agg(0.3 * sin(i * 0.7 + id)
                         + coalesce((CASE WHEN id % 2 = 0 THEN ARRAY[0.5, 1.5, 3, 1.5, 0.5]
                                          ELSE ARRAY[2, 2, 2, 2, 2] END)[i - (4 + id % 7 * 3) + 1], 0) ORDER BY i)
        FROM generate_series(1, 40) i)
FROM generate_series(1, 20) id;
CREATE TABLE models (name text PRIMARY KEY, model jsonb NOT NULL);
INSERT INTO models
SELECT 'shapes', ts_shapelet_tree('SELECT label, series FROM shapes WHERE part = ''train'' ORDER BY id', 4, 8);
CREATE VIEW shapes_classified AS
  SELECT s.id, s.label, ts_shapelet_classify(m.model, s.series) AS predicted
  FROM shapes s CROSS JOIN models m WHERE m.name = 'shapes' AND s.part = 'test';
CREATE INDEX shapes_spike_distance ON shapes ((ts_shapelet_distance(ARRAY[0.5, 1.5, 3, 1.5, 0.5], series)));

CREATE TEMP TABLE before_discords AS SELECT * FROM reading_discords;
CREATE TEMP TABLE before_discords_query AS SELECT * FROM reading_discords_query;
CREATE TEMP TABLE before_profile AS SELECT * FROM reading_profile;
CREATE TEMP TABLE before_outliers AS SELECT * FROM reading_outliers;
CREATE TEMP TABLE before_oids AS
  SELECT p.oid FROM pg_proc p WHERE p.proname IN ('ts_discords', 'ts_matrix_profile', 'ts_outliers');
CREATE TEMP TABLE before_classified AS SELECT * FROM shapes_classified;
SELECT is((SELECT count(*)::int FROM before_classified WHERE label = predicted), 4,
          'on 0.1.0 the stored model classifies the held-out series');

-- the update
SELECT lives_ok('ALTER EXTENSION tsmine UPDATE', 'ALTER EXTENSION tsmine UPDATE runs with the objects in place');
SELECT is((SELECT extversion FROM pg_extension WHERE extname = 'tsmine'),
          (SELECT default_version FROM pg_available_extensions WHERE name = 'tsmine'),
          'the update reaches the default version');
SELECT isnt((SELECT extversion FROM pg_extension WHERE extname = 'tsmine'), '0.1.0', 'the version changed');

-- the objects still work, with the same rows
SELECT results_eq('SELECT * FROM reading_discords ORDER BY rank', 'SELECT * FROM before_discords ORDER BY rank',
                  'the view over ts_discords gives the same discords');
SELECT is((SELECT pos FROM reading_discords WHERE rank = 1), 300::bigint, '... the planted one first');
SELECT results_eq('SELECT * FROM reading_discords_query ORDER BY rank',
                  'SELECT * FROM before_discords_query ORDER BY rank',
                  'the view over the query form gives the same discords');
SELECT results_eq('SELECT * FROM reading_profile ORDER BY pos', 'SELECT * FROM before_profile ORDER BY pos',
                  'the view over ts_matrix_profile gives the same profile');
SELECT results_eq('SELECT * FROM reading_outliers ORDER BY pos', 'SELECT * FROM before_outliers ORDER BY pos',
                  'the view over ts_outliers gives the same outliers');
SELECT results_eq('SELECT * FROM shapes_classified ORDER BY id', 'SELECT * FROM before_classified ORDER BY id',
                  'the stored model classifies as before');
SELECT is((SELECT count(*)::int FROM shapes_classified WHERE label = predicted), 4,
          '... every held-out series correctly');
SELECT is((SELECT indisvalid FROM pg_index WHERE indexrelid = 'shapes_spike_distance'::regclass), true,
          'the expression index on ts_shapelet_distance is still valid');
SET LOCAL enable_seqscan = off;
SELECT is((SELECT count(*)::int FROM shapes WHERE ts_shapelet_distance(ARRAY[0.5, 1.5, 3, 1.5, 0.5], series) < 0.3),
          (SELECT count(*)::int FROM shapes WHERE label = 'spike'),
          '... and finds the spikes');
RESET enable_seqscan;

-- 0.1.0 functions that 0.2.0 gives new arguments (normalized, gaps) keep
-- their identity (the views depend on it) and take the new signatures
SELECT is((SELECT string_agg(p.oid::regprocedure::text, ', ' ORDER BY p.oid::regprocedure::text)
           FROM pg_proc p JOIN before_oids b ON b.oid = p.oid),
          'ts_discords(double precision[],integer,integer,double precision,integer,text,boolean,text), '
          'ts_discords(text,integer,integer,double precision,integer,text,boolean,text), '
          'ts_matrix_profile(double precision[],integer,integer,boolean,text), '
          'ts_matrix_profile(text,integer,integer,boolean,text), '
          'ts_outliers(double precision[],double precision,text,text), '
          'ts_outliers(text,double precision,text,text)',
          'the 0.1.0 functions keep their oids, with the 0.2.0 signatures');
SELECT is((SELECT count(*)::int FROM pg_proc p WHERE p.proname LIKE 'ts\_%\_0\_1\_0' OR p.proname LIKE 'tsmine\_%template%'),
          0, 'no renamed old signature and no template is left');
SELECT is((SELECT count(*)::int FROM ts_discords((SELECT array_agg(v ORDER BY pos) FROM readings), 20, 2)), 2,
          'a call without normalized and gaps resolves to the 0.2.0 function (no ambiguity)');

-- the catalogue equals a fresh install's
SELECT set_eq('SELECT * FROM pg_temp.tsmine_catalogue()', 'SELECT fact FROM fresh_catalogue',
              'the updated catalogue equals a fresh install''s (functions, signatures, markings, comments)');
SELECT cmp_ok((SELECT count(*)::int FROM fresh_catalogue), '>', 19, 'the catalogue compared is not empty');

SELECT * FROM finish();
ROLLBACK;
