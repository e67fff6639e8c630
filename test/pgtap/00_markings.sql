-- Function markings: language, volatility, strictness, parallel safety,
-- comments, and schema of every tsmine function.
BEGIN;
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS tsmine;
SELECT plan(25);

-- every function of the extension has a comment and is in C (aggregates: their functions are)
SELECT is(
  (SELECT count(*)::int FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.deptype = 'e'
     JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'tsmine'
   WHERE obj_description(p.oid, 'pg_proc') IS NULL),
  0, 'every tsmine function has a COMMENT');
SELECT is(
  (SELECT count(*)::int FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.deptype = 'e'
     JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'tsmine'
   WHERE p.prokind <> 'a' AND p.prolang <> (SELECT oid FROM pg_language WHERE lanname = 'c')),
  0, 'every tsmine function is implemented in C');
-- query forms run arbitrary SQL: volatile and parallel unsafe
SELECT is(
  (SELECT count(*)::int FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.deptype = 'e'
     JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'tsmine'
   WHERE p.proargnames[1] IN ('series_sql', 'training_sql', 'a_sql') AND (p.provolatile <> 'v' OR p.proparallel <> 'u')),
  0, 'query forms are VOLATILE and PARALLEL UNSAFE');
-- array forms: immutable (their rows depend on the arguments alone; the tsmine
-- settings choose where they run) and parallel safe
SELECT volatility_is('ts_outliers', ARRAY['double precision[]', 'double precision', 'text', 'text'], 'immutable',
                     'ts_outliers(float8[]) is IMMUTABLE');
SELECT is((SELECT proparallel::text FROM pg_proc WHERE oid = 'ts_outliers(float8[], float8, text, text)'::regprocedure),
          's', 'ts_outliers(float8[]) is PARALLEL SAFE');
SELECT isnt_strict('ts_outliers', ARRAY['double precision[]', 'double precision', 'text', 'text'],
                   'ts_outliers is not STRICT: NULL arguments raise an error');
SELECT volatility_is('ts_device_info', ARRAY[]::text[], 'volatile', 'ts_device_info is VOLATILE');
SELECT is((SELECT proparallel::text FROM pg_proc WHERE oid = 'ts_device_info()'::regprocedure),
          'r', 'ts_device_info is PARALLEL RESTRICTED');
SELECT volatility_is('ts_gpu_slots', ARRAY[]::text[], 'volatile', 'ts_gpu_slots is VOLATILE');
SELECT is((SELECT proparallel::text FROM pg_proc WHERE oid = 'ts_gpu_slots()'::regprocedure),
          'r', 'ts_gpu_slots is PARALLEL RESTRICTED');

-- every array form (first argument `series`, the tile functions included) is
-- IMMUTABLE and PARALLEL SAFE: what Citus needs to push it down in every query
-- shape; ts_plot aside (STABLE: its time labels follow DateStyle and TimeZone)
SELECT is(
  (SELECT string_agg(p.oid::regprocedure::text, ', ') FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.deptype = 'e'
     JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'tsmine'
   WHERE p.proargnames[1] = 'series' AND p.proname <> 'ts_plot' AND (p.provolatile <> 'i' OR p.proparallel <> 's')),
  NULL, 'array forms are IMMUTABLE and PARALLEL SAFE');
SELECT is(
  (SELECT count(*)::int FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.deptype = 'e'
     JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'tsmine'
   WHERE p.proargnames[1] = 'series' AND p.proname ~ '_(tile|from_tiles)$'),
  4, 'the tile functions are among them (tile, profile, discords and motifs from tiles)');
-- merging partial profiles: a STRICT function, and an aggregate with a
-- combine function over a non-internal state (what Citus needs to merge on
-- the workers first): a bytea, which Citus ships as hex
SELECT is((SELECT provolatile::text || proparallel::text || proisstrict::text FROM pg_proc
           WHERE oid = 'ts_matrix_profile_merge(bigint[], bigint[])'::regprocedure),
          'istrue', 'ts_matrix_profile_merge(a, b) is IMMUTABLE PARALLEL SAFE STRICT');
SELECT is((SELECT format('%s %s %s %s %s', a.aggtransfn::regprocedure, a.aggcombinefn::regprocedure,
                         a.aggfinalfn::regprocedure, a.aggtranstype::regtype, p.proparallel)
           FROM pg_aggregate a JOIN pg_proc p ON p.oid = a.aggfnoid
           WHERE a.aggfnoid = 'ts_matrix_profile_merge(bigint[])'::regprocedure),
          'ts_matrix_profile_merge_state(bytea,bigint[]) ts_matrix_profile_merge_states(bytea,bytea) '
          'ts_matrix_profile_merge_final(bytea) bytea s',
          'the aggregate ts_matrix_profile_merge: combine function, bytea state, PARALLEL SAFE');
-- pure functions of their arguments are IMMUTABLE
SELECT is(
  (SELECT string_agg(provolatile::text || proparallel::text, ',' ORDER BY oid) FROM pg_proc
   WHERE oid IN ('ts_shapelet_distance(float8[], float8[], text)'::regprocedure, 'ts_shapelet_classify(jsonb, float8[], text)'::regprocedure)),
  'is,is', 'ts_shapelet_distance and ts_shapelet_classify(model, series) are IMMUTABLE PARALLEL SAFE');
SELECT is(
  (SELECT provolatile::text || proparallel::text FROM pg_proc WHERE oid = 'ts_shapelet_classify(jsonb, text, text)'::regprocedure),
  'vu', 'the batch ts_shapelet_classify runs a query: VOLATILE PARALLEL UNSAFE');

-- markings: the timed array forms are STABLE PARALLEL SAFE, the timed query forms VOLATILE PARALLEL UNSAFE
SELECT is(
  (SELECT string_agg(p.oid::regprocedure::text, ', ') FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.deptype = 'e'
     JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'tsmine'
   WHERE p.proargnames[1] IN ('times', 'a_times') AND (p.provolatile <> 's' OR p.proparallel <> 's' OR p.proisstrict)),
  NULL, 'timed array forms are STABLE, PARALLEL SAFE and not STRICT');
SELECT is(
  (SELECT string_agg(p.oid::regprocedure::text, ', ') FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.deptype = 'e'
     JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'tsmine'
   WHERE p.proargnames[1] = 'time_type' AND (p.provolatile <> 'v' OR p.proparallel <> 'u' OR p.proisstrict)),
  NULL, 'timed query forms are VOLATILE, PARALLEL UNSAFE and not STRICT');
SELECT is(
  (SELECT count(*)::int FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.deptype = 'e'
     JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'tsmine'
   WHERE p.proargnames[1] IN ('times', 'a_times', 'time_type')),
  19, 'every series function has its timed forms (6 × 2, the 3 of two series × 2, and ts_shapelets)');
-- ts_progress reads shared memory of other sessions, ts_estimate reads the
-- settings and which GPUs are visible: neither belongs in a parallel worker
SELECT is(
  (SELECT provolatile::text || proparallel::text FROM pg_proc WHERE oid = 'ts_progress()'::regprocedure),
  'vr', 'ts_progress is VOLATILE PARALLEL RESTRICTED');
SELECT is(
  (SELECT provolatile::text || proparallel::text || proisstrict::text FROM pg_proc
   WHERE oid = 'ts_estimate(text, bigint, int, int, text, text, bigint, int, int)'::regprocedure),
  'srfalse', 'ts_estimate is STABLE PARALLEL RESTRICTED, not STRICT (a NULL function or n is an error)');
SELECT is(
  (SELECT prorows FROM pg_proc WHERE oid = 'ts_estimate(text, bigint, int, int, text, text, bigint, int, int)'::regprocedure),
  1::real, 'ts_estimate returns one row');
-- every function with a query form has an array form of the same name
SELECT is(
  (SELECT string_agg(DISTINCT q.proname, ', ') FROM pg_proc q JOIN pg_depend d ON d.objid = q.oid AND d.deptype = 'e'
     JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'tsmine'
   WHERE 'series_sql' = ANY (q.proargnames)
     AND NOT EXISTS (SELECT 1 FROM pg_proc a WHERE a.proname = q.proname AND 'series' = ANY (a.proargnames)
                     AND a.proargtypes[array_position(a.proargnames, 'series') - 1] = 'float8[]'::regtype)),
  NULL, 'every query form has an array form, which an array literal in its place means');

-- two series (the AB-join): array forms (a, b) IMMUTABLE PARALLEL SAFE, query
-- forms (a_sql, b_sql) as every query form; none STRICT (a NULL is an error)
SELECT is(
  (SELECT string_agg(p.oid::regprocedure::text || ' ' || p.provolatile::text || p.proparallel::text || p.proisstrict::text, ', '
                     ORDER BY p.oid::regprocedure::text)
   FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.deptype = 'e'
     JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'tsmine'
   WHERE p.proname LIKE '%\_ab'),
  'ts_discords_ab(anyarray,double precision[],anyarray,double precision[],integer,integer,double precision,integer,boolean,text) ssfalse, '
  'ts_discords_ab(anynonarray,text,text,integer,integer,double precision,integer,boolean,text) vufalse, '
  'ts_discords_ab(double precision[],double precision[],integer,integer,double precision,integer,boolean,text) isfalse, '
  'ts_discords_ab(text,text,integer,integer,double precision,integer,boolean,text) vufalse, '
  'ts_matrix_profile_ab(anyarray,double precision[],anyarray,double precision[],integer,integer,boolean,text) ssfalse, '
  'ts_matrix_profile_ab(anynonarray,text,text,integer,integer,boolean,text) vufalse, '
  'ts_matrix_profile_ab(double precision[],double precision[],integer,integer,boolean,text) isfalse, '
  'ts_matrix_profile_ab(text,text,integer,integer,boolean,text) vufalse, '
  'ts_motifs_ab(anyarray,double precision[],anyarray,double precision[],integer,integer,integer,boolean,text) ssfalse, '
  'ts_motifs_ab(anynonarray,text,text,integer,integer,integer,boolean,text) vufalse, '
  'ts_motifs_ab(double precision[],double precision[],integer,integer,integer,boolean,text) isfalse, '
  'ts_motifs_ab(text,text,integer,integer,integer,boolean,text) vufalse',
  'the AB-join functions: array forms IMMUTABLE PARALLEL SAFE, timed array forms STABLE PARALLEL SAFE, query forms VOLATILE PARALLEL UNSAFE, none STRICT');
SELECT is(
  (SELECT string_agg(p.proname || ':' || array_to_string(p.proargnames, ','), '; ' ORDER BY p.oid::regprocedure::text)
   FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.deptype = 'e'
     JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'tsmine'
   WHERE p.proname LIKE '%\_ab' AND p.proargnames[1] = 'a'),
  'ts_discords_ab:a,b,m,k,min_distance,exclusion_zone,normalized,gaps,rank,pos,distance,neighbor; '
  'ts_matrix_profile_ab:a,b,m,exclusion_zone,normalized,gaps,pos,distance,neighbor; '
  'ts_motifs_ab:a,b,m,k,exclusion_zone,normalized,gaps,rank,pos_a,pos_b,distance',
  'the AB-join functions'' arguments and columns');

SELECT * FROM finish();
ROLLBACK;
