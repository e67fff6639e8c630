-- One series' matrix profile in tiles on one node (the Citus suite,
-- test/citus/run.sh, does the same across workers): merged tiles equal
-- ts_matrix_profile bit for bit, through the aggregate (also as a parallel
-- aggregate, with its combine function) and the two-argument merge; the
-- discords and motifs from them equal ts_discords and ts_motifs; partial
-- profiles that do not belong together are refused with 22023.
BEGIN;
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS tsmine;
SELECT plan(24);

-- three segments of rows (8192 each), a planted anomaly and a repeat
CREATE TEMP TABLE s AS
SELECT array_agg(sin(i * 0.01) + ((i * 7919) % 1013) / 2000.0 + CASE WHEN i BETWEEN 9000 AND 9040 THEN 0.6 ELSE 0 END
                 ORDER BY i) AS a
FROM generate_series(1, 20000) i;
UPDATE s SET a[15001:15300] = a[2001:2300];
CREATE TEMP TABLE tiles AS SELECT t FROM generate_series(1, 7) t;
CREATE TEMP TABLE single AS SELECT * FROM ts_matrix_profile((SELECT a FROM s), 50);
CREATE FUNCTION pg_temp.differences(merged bigint[]) RETURNS bigint LANGUAGE sql AS $$
  SELECT count(*) FROM ts_matrix_profile_from_tiles((SELECT a FROM s), merged) t FULL JOIN single o USING (pos)
  WHERE t.neighbor IS DISTINCT FROM o.neighbor OR t.distance IS DISTINCT FROM o.distance $$;

SELECT is(pg_temp.differences((SELECT ts_matrix_profile_merge(ts_matrix_profile_tile(s.a, 50, t, 7)) FROM s, tiles)),
          0::bigint, 'seven tiles merged by the aggregate: ts_matrix_profile, bit for bit');
SELECT is((SELECT count(*) FROM ts_matrix_profile_from_tiles((SELECT a FROM s),
             (SELECT ts_matrix_profile_merge(ts_matrix_profile_tile(s.a, 50, t, 7)) FROM s, tiles))),
          19951::bigint, '... one row per window');
SELECT is(pg_temp.differences(ts_matrix_profile_merge(ts_matrix_profile_merge(
            ts_matrix_profile_tile((SELECT a FROM s), 50, 2, 2), ts_matrix_profile_tile((SELECT a FROM s), 50, 2, 2)),
            ts_matrix_profile_tile((SELECT a FROM s), 50, 1, 2))),
          0::bigint, 'two tiles by the two-argument merge, one of them twice, in another order: the same');
SELECT is(pg_temp.differences((SELECT ts_matrix_profile_merge(ts_matrix_profile_tile(s.a, 50, t, 40))
                               FROM s, generate_series(1, 40) t)),
          0::bigint, 'forty tiles, more than the work has units (some are empty): the same');

-- a parallel aggregate: partial merges in the workers, then the combine function
CREATE FUNCTION pg_temp.plan(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE line text; lines text := '';
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP lines := lines || line || E'\n'; END LOOP;
  RETURN lines;
END $$;
CREATE TABLE ptiles WITH (parallel_workers = 2) AS SELECT t, (SELECT a FROM s) AS a FROM generate_series(1, 12) t;
SET LOCAL parallel_setup_cost = 0;
SET LOCAL parallel_tuple_cost = 0;
SET LOCAL min_parallel_table_scan_size = 0;
SET LOCAL max_parallel_workers_per_gather = 2;
SELECT matches(pg_temp.plan('SELECT ts_matrix_profile_merge(ts_matrix_profile_tile(a, 50, t, 12)) FROM ptiles'),
               'Partial Aggregate', 'the aggregate can run in parallel: partial merges, then the combine function');
SELECT is(pg_temp.differences((SELECT ts_matrix_profile_merge(ts_matrix_profile_tile(a, 50, t, 12)) FROM ptiles)),
          0::bigint, '... and gives the same profile');
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;

-- discords and motifs from merged tiles (exclusion_zone => m, their default)
CREATE TEMP TABLE merged_m AS
SELECT ts_matrix_profile_merge(ts_matrix_profile_tile(s.a, 50, t, 7, exclusion_zone => 50)) AS p FROM s, tiles;
SELECT results_eq('SELECT d.* FROM s, merged_m, ts_discords_from_tiles(s.a, p, 3) d',
                  'SELECT d.* FROM s, ts_discords(s.a, 50, 3) d',
                  'ts_discords_from_tiles = ts_discords (top 3)');
SELECT ok((SELECT pos BETWEEN 8951 AND 9040 FROM s, merged_m, ts_discords_from_tiles(s.a, p, 1) d),
          '... the planted anomaly first');
SELECT results_eq('SELECT d.* FROM s, merged_m, ts_discords_from_tiles(s.a, p, NULL, 1.5) d',
                  'SELECT d.* FROM s, ts_discords(s.a, 50, NULL, 1.5) d',
                  '... and in range mode');
SELECT results_eq('SELECT d.* FROM s, merged_m, ts_motifs_from_tiles(s.a, p, 2) d',
                  'SELECT d.* FROM s, ts_motifs(s.a, 50, 2) d',
                  'ts_motifs_from_tiles = ts_motifs (top 2)');

-- raw values (normalized => false): the tiles of the raw-value profile
CREATE TEMP TABLE merged_raw AS
SELECT ts_matrix_profile_merge(ts_matrix_profile_tile(s.a, 50, t, 7, exclusion_zone => 50, normalized => false)) AS p
FROM s, tiles;
SELECT is((SELECT count(*) FROM s, merged_raw, ts_matrix_profile_from_tiles(s.a, p) t
           FULL JOIN ts_matrix_profile((SELECT a FROM s), 50, 50, normalized => false) o USING (pos)
           WHERE t.neighbor IS DISTINCT FROM o.neighbor OR t.distance IS DISTINCT FROM o.distance),
          0::bigint, 'raw-value tiles merged: ts_matrix_profile(normalized => false), bit for bit');
SELECT results_eq('SELECT d.* FROM s, merged_raw, ts_discords_from_tiles(s.a, p, 3) d',
                  'SELECT d.* FROM s, ts_discords(s.a, 50, 3, normalized => false) d',
                  'ts_discords_from_tiles of raw-value tiles = ts_discords(normalized => false)');
SELECT results_eq('SELECT d.* FROM s, merged_raw, ts_motifs_from_tiles(s.a, p, 2) d',
                  'SELECT d.* FROM s, ts_motifs(s.a, 50, 2, normalized => false) d',
                  'ts_motifs_from_tiles of raw-value tiles = ts_motifs(normalized => false)');
SELECT throws_ok($$SELECT ts_matrix_profile_merge(ts_matrix_profile_tile(a, 50, 1, 7), ts_matrix_profile_tile(a, 50, 2, 7, normalized => false))
                   FROM s$$, '22023', NULL, 'a raw-value tile and a z-normalised tile do not merge');

-- what does not belong together
SELECT throws_ok('SELECT ts_matrix_profile_tile((SELECT a FROM s), 50, 0, 7)', '22023', NULL, 'tile 0: 22023');
SELECT throws_ok('SELECT ts_matrix_profile_tile(NULL, 50, 1, 7)', '22004', NULL, 'a NULL series: 22004');
SELECT throws_ok($$SELECT ts_matrix_profile_merge(ts_matrix_profile_tile(a, 50, 1, 7), ts_matrix_profile_tile(a, 50, 1, 8))
                   FROM s$$, '22023', NULL, 'tiles of different numbers of tiles do not merge');
SELECT throws_like($$SELECT * FROM ts_matrix_profile_from_tiles((SELECT a FROM s),
                       (SELECT ts_matrix_profile_merge(ts_matrix_profile_tile(s.a, 50, t, 7)) FROM s, tiles WHERE t <> 4))$$,
                   '%lack 1 of the 7 tiles: 4%', 'a tile missing: the error names it');
SELECT throws_like($$SELECT * FROM ts_matrix_profile_from_tiles((SELECT a[1:19999] || 0.5::float8 FROM s),
                       (SELECT ts_matrix_profile_merge(ts_matrix_profile_tile(s.a, 50, t, 7)) FROM s, tiles))$$,
                   '%other values%', 'another series of the same length: refused');
SELECT throws_ok($$SELECT ts_matrix_profile_merge(ARRAY[1, 2, 3]::bigint[], ARRAY[1, 2, 3]::bigint[])$$, '22023', NULL,
                 'a bigint[] that is not a partial profile: 22023');
SELECT throws_ok($$SELECT ts_matrix_profile_merge(p) FROM (VALUES (ARRAY[1, 2, 3]::bigint[])) v(p)$$, '22023', NULL,
                 '... the aggregate refuses one too, even alone');
SELECT is((SELECT ts_matrix_profile_merge(NULL::bigint[]) FROM tiles), NULL, 'the aggregate of NULL partials alone is NULL');
SELECT is(pg_temp.differences((SELECT ts_matrix_profile_merge(p) FROM (SELECT ts_matrix_profile_tile(s.a, 50, t, 7) AS p FROM s, tiles
                                UNION ALL SELECT NULL) v)),
          0::bigint, 'NULL partials are skipped');
SELECT throws_ok($$SELECT ts_matrix_profile_merge_state(NULL, ARRAY[1]::bigint[])$$, '0A000', NULL,
                 'the transition function is the aggregate''s alone');

SELECT * FROM finish();
ROLLBACK;
