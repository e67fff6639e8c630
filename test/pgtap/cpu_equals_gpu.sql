-- Every method on the CPU against the configured backend (on a GPU host run
-- with tsmine.backend = gpu: the GPU), on random and real series: same
-- positions, distances within 1e-9 relative.
BEGIN;
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS tsmine;
SELECT plan(18);

SELECT setseed(0.25);
CREATE TEMP TABLE walk AS
  SELECT i, sum((random() - 0.5)) OVER (ORDER BY i) + CASE WHEN i BETWEEN 7000 AND 7050 THEN 3 * sin(i) ELSE 0 END AS v
  FROM generate_series(1, 12000) i;
CREATE TEMP TABLE walk_a AS SELECT array_agg(v ORDER BY i) AS a FROM walk;
CREATE TEMP TABLE tek (pos bigserial, v float8);
\copy tek (v) FROM '../shared/data/anomaly/keogh_discords/space_shuttle/TEK16.txt'
CREATE TEMP TABLE tek_a AS SELECT array_agg(v ORDER BY pos) AS a FROM tek;
CREATE TEMP TABLE gp (id bigserial, line text);
\copy gp (line) FROM '../shared/data/ucr/GunPoint/GunPoint_TRAIN.tsv' WITH (FORMAT text, DELIMITER '|')
CREATE TEMP TABLE gp_train AS SELECT id, split_part(line, E'\t', 1)::float8::int::text AS label,
  (string_to_array(line, E'\t'))[2:]::float8[] AS series FROM gp;

-- results on the configured backend
CREATE TEMP TABLE d_mp AS SELECT * FROM ts_matrix_profile((SELECT a FROM walk_a), 100);
CREATE TEMP TABLE d_mpa AS SELECT * FROM ts_matrix_profile_arrays((SELECT a FROM walk_a), 100);
CREATE TEMP TABLE d_mp_tek AS SELECT * FROM ts_matrix_profile((SELECT a FROM tek_a), 128, 128);
CREATE TEMP TABLE d_disc AS SELECT * FROM ts_discords((SELECT a FROM walk_a), 64, 5, method => 'pd3');
CREATE TEMP TABLE d_range AS SELECT * FROM ts_discords((SELECT a FROM tek_a), 128, NULL, 13.9, method => 'pd3');
CREATE TEMP TABLE d_mot AS SELECT * FROM ts_motifs((SELECT a FROM walk_a), 64, 3, method => 'mk');
CREATE TEMP TABLE d_mot_tek AS SELECT * FROM ts_motifs((SELECT a FROM tek_a), 128, 2, method => 'mk');
CREATE TEMP TABLE d_match AS SELECT * FROM ts_match((SELECT a FROM walk_a), (SELECT a[7000:7099] FROM walk_a), k => 10);
CREATE TEMP TABLE d_shp AS SELECT * FROM ts_shapelets('SELECT label, series FROM gp_train ORDER BY id', 10, 150, 10, 3);
CREATE TEMP TABLE d_tree AS SELECT ts_shapelet_tree('SELECT label, series FROM gp_train ORDER BY id', 10, 150, 10, logical => true) AS m;
CREATE TEMP TABLE d_out AS SELECT * FROM ts_outliers((SELECT a FROM walk_a), 2);
CREATE TEMP TABLE d_raw_mp AS SELECT * FROM ts_matrix_profile((SELECT a FROM walk_a), 100, normalized => false);
CREATE TEMP TABLE d_raw_disc AS SELECT * FROM ts_discords((SELECT a FROM walk_a), 64, 5, normalized => false);
CREATE TEMP TABLE d_raw_mot AS SELECT * FROM ts_motifs((SELECT a FROM walk_a), 64, 3, normalized => false);
CREATE TEMP TABLE d_raw_match AS
  SELECT * FROM ts_match((SELECT a FROM walk_a), (SELECT a[7000:7099] FROM walk_a), k => 10, normalized => false);
CREATE TEMP TABLE d_mad AS SELECT * FROM ts_outliers((SELECT a FROM tek_a), 3, 'mad');

SELECT set_config('tsmine.backend', 'cpu', true);
CREATE FUNCTION pg_temp.close(a float8, b float8) RETURNS bool AS
  $$ SELECT abs(a - b) <= 1e-9 * greatest(1.0, abs(a), abs(b)) $$ LANGUAGE sql;

SELECT is((SELECT count(*)::int FROM ts_matrix_profile((SELECT a FROM walk_a), 100) c FULL JOIN d_mp g USING (pos)
           WHERE c.neighbor IS DISTINCT FROM g.neighbor OR NOT pg_temp.close(c.distance, g.distance)), 0,
          'matrix profile of a random walk: CPU = configured backend');
SELECT is((SELECT count(*)::int FROM ts_matrix_profile((SELECT a FROM tek_a), 128, 128) c FULL JOIN d_mp_tek g USING (pos)
           WHERE c.neighbor IS DISTINCT FROM g.neighbor OR NOT pg_temp.close(c.distance, g.distance)), 0,
          'matrix profile of TEK16: CPU = configured backend');
SELECT is((SELECT count(*)::int FROM ts_matrix_profile((SELECT a FROM walk_a), 100) c, d_mpa g
           WHERE c.neighbor IS DISTINCT FROM g.neighbor[c.pos] OR NOT pg_temp.close(c.distance, g.distance[c.pos])), 0,
          'matrix profile of a random walk as arrays: CPU rows = configured backend arrays');
SELECT is((SELECT cardinality(distance) FROM d_mpa), 12000 - 100 + 1, 'and the arrays have one entry per window');
SELECT is((SELECT count(*)::int FROM ts_discords((SELECT a FROM walk_a), 64, 5, method => 'pd3') c FULL JOIN d_disc g USING (rank)
           WHERE c.pos IS DISTINCT FROM g.pos OR c.neighbor IS DISTINCT FROM g.neighbor OR NOT pg_temp.close(c.distance, g.distance)), 0,
          'top-5 discords (pd3): CPU = configured backend');
SELECT is((SELECT count(*)::int FROM ts_discords((SELECT a FROM tek_a), 128, NULL, 13.9, method => 'pd3') c FULL JOIN d_range g USING (rank)
           WHERE c.pos IS DISTINCT FROM g.pos OR NOT pg_temp.close(c.distance, g.distance)), 0,
          'range discords of TEK16 (pd3): CPU = configured backend');
SELECT cmp_ok((SELECT count(*)::int FROM d_range), '>', 5, 'and there are several');
SELECT is((SELECT count(*)::int FROM ts_motifs((SELECT a FROM walk_a), 64, 3, method => 'mk') c FULL JOIN d_mot g USING (rank)
           WHERE c.pos_a IS DISTINCT FROM g.pos_a OR c.pos_b IS DISTINCT FROM g.pos_b OR NOT pg_temp.close(c.distance, g.distance)), 0,
          'motifs (mk) of a random walk: CPU = configured backend');
SELECT is((SELECT count(*)::int FROM ts_motifs((SELECT a FROM tek_a), 128, 2, method => 'mk') c FULL JOIN d_mot_tek g USING (rank)
           WHERE c.pos_a IS DISTINCT FROM g.pos_a OR c.pos_b IS DISTINCT FROM g.pos_b OR NOT pg_temp.close(c.distance, g.distance)), 0,
          'motifs (mk) of TEK16: CPU = configured backend');
SELECT is((SELECT count(*)::int FROM ts_match((SELECT a FROM walk_a), (SELECT a[7000:7099] FROM walk_a), k => 10) c FULL JOIN d_match g USING (rank)
           WHERE c.pos IS DISTINCT FROM g.pos OR NOT pg_temp.close(c.distance, g.distance)), 0,
          'ts_match: CPU = configured backend');
SELECT is((SELECT count(*)::int FROM ts_shapelets('SELECT label, series FROM gp_train ORDER BY id', 10, 150, 10, 3) c FULL JOIN d_shp g USING (rank)
           WHERE c.source_row IS DISTINCT FROM g.source_row OR c.start IS DISTINCT FROM g.start OR c.length IS DISTINCT FROM g.length
              OR c.info_gain IS DISTINCT FROM g.info_gain OR NOT pg_temp.close(c.threshold, g.threshold)), 0,
          'GunPoint shapelets: CPU = configured backend');
SELECT is((SELECT ts_shapelet_tree('SELECT label, series FROM gp_train ORDER BY id', 10, 150, 10, logical => true)::text = m::text FROM d_tree),
          true, 'GunPoint logical shapelet tree: CPU = configured backend');
SELECT is((SELECT count(*)::int FROM ts_outliers((SELECT a FROM walk_a), 2) c FULL JOIN d_out g USING (pos)
           WHERE c.value IS DISTINCT FROM g.value OR NOT pg_temp.close(c.zscore, g.zscore)), 0,
          'sigma outliers: CPU = configured backend');
SELECT is((SELECT count(*)::int FROM ts_outliers((SELECT a FROM tek_a), 3, 'mad') c FULL JOIN d_mad g USING (pos)
           WHERE c.value IS DISTINCT FROM g.value OR NOT pg_temp.close(c.zscore, g.zscore)), 0,
          'mad outliers of TEK16: CPU = configured backend');

SELECT is((SELECT count(*)::int FROM ts_matrix_profile((SELECT a FROM walk_a), 100, normalized => false) c FULL JOIN d_raw_mp g USING (pos)
           WHERE c.neighbor IS DISTINCT FROM g.neighbor OR c.distance IS DISTINCT FROM g.distance), 0,
          'raw-value matrix profile of a random walk: CPU = configured backend, bit for bit');
SELECT is((SELECT count(*)::int FROM ts_discords((SELECT a FROM walk_a), 64, 5, normalized => false) c FULL JOIN d_raw_disc g USING (rank)
           WHERE c.pos IS DISTINCT FROM g.pos OR c.neighbor IS DISTINCT FROM g.neighbor OR c.distance IS DISTINCT FROM g.distance), 0,
          'raw-value discords: CPU = configured backend');
SELECT is((SELECT count(*)::int FROM ts_motifs((SELECT a FROM walk_a), 64, 3, normalized => false) c FULL JOIN d_raw_mot g USING (rank)
           WHERE c.pos_a IS DISTINCT FROM g.pos_a OR c.pos_b IS DISTINCT FROM g.pos_b OR c.distance IS DISTINCT FROM g.distance), 0,
          'raw-value motifs: CPU = configured backend');
SELECT is((SELECT count(*)::int FROM ts_match((SELECT a FROM walk_a), (SELECT a[7000:7099] FROM walk_a), k => 10, normalized => false) c
           FULL JOIN d_raw_match g USING (rank) WHERE c.pos IS DISTINCT FROM g.pos OR c.distance IS DISTINCT FROM g.distance), 0,
          'raw-value ts_match: CPU = configured backend');

SELECT * FROM finish();
ROLLBACK;
