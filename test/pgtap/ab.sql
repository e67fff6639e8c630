-- Two series (AB-join): every form on the CPU against the configured backend
-- (on a GPU host run with tsmine.backend = gpu: the GPU), bit for bit; a = b
-- against the self-join; unequal lengths both ways; raw values
-- (normalized => false) and gaps (NULL, NaN, infinities) in a, in b and in
-- both; the errors of every form.
BEGIN;
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS tsmine;
SELECT plan(34);

SELECT setseed(0.5);
CREATE TEMP TABLE walk AS
  SELECT i, sum(random() - 0.5) OVER (ORDER BY i) AS v FROM generate_series(1, 20000) i;
CREATE TEMP TABLE ab AS
  SELECT (SELECT array_agg(v ORDER BY i) FROM walk WHERE i <= 12000) AS a,
         (SELECT array_agg(v ORDER BY i) FROM walk WHERE i > 12000) AS b;
-- with gaps: a NULL every 97th value of a, a run of NaN and an infinity in b
CREATE TEMP TABLE ab_gaps AS
  SELECT (SELECT array_agg(CASE WHEN i % 97 = 0 THEN NULL ELSE v END ORDER BY i) FROM walk WHERE i <= 12000) AS a,
         (SELECT array_agg(CASE WHEN i BETWEEN 15000 AND 15040 THEN 'NaN' WHEN i = 19000 THEN '-Infinity' ELSE v END ORDER BY i)
            FROM walk WHERE i > 12000) AS b;
CREATE TEMP TABLE ecg (pos bigserial, t text, v float8, lead2 float8);
\copy ecg (t, v, lead2) FROM PROGRAM 'tr -d "\r" < ../shared/data/anomaly/keogh_discords/ecg/qtdbsel102.txt' WITH (FORMAT text, DELIMITER E'\t')

-- results on the configured backend
CREATE TEMP TABLE d_ab AS SELECT * FROM ts_matrix_profile_ab((SELECT a FROM ab), (SELECT b FROM ab), 100);
CREATE TEMP TABLE d_ba AS SELECT * FROM ts_matrix_profile_ab((SELECT b FROM ab), (SELECT a FROM ab), 100);
CREATE TEMP TABLE d_excl AS SELECT * FROM ts_matrix_profile_ab((SELECT a FROM ab), (SELECT a[1:9000] FROM ab), 50, 300);
CREATE TEMP TABLE d_self AS
  SELECT (SELECT count(*) FROM ts_matrix_profile_ab((SELECT a FROM ab), (SELECT a FROM ab), 64, 17) x
            FULL JOIN ts_matrix_profile((SELECT a FROM ab), 64, 17) y USING (pos)
            WHERE x.neighbor IS DISTINCT FROM y.neighbor OR x.distance IS DISTINCT FROM y.distance) AS differ;
CREATE TEMP TABLE d_disc AS
  SELECT * FROM ts_discords_ab('SELECT v FROM ecg WHERE pos <= 22500 ORDER BY pos', 'SELECT v FROM ecg WHERE pos > 22500 ORDER BY pos', 256, 3);
CREATE TEMP TABLE d_mot AS
  SELECT * FROM ts_motifs_ab('SELECT v FROM ecg WHERE pos <= 22500 ORDER BY pos', 'SELECT v FROM ecg WHERE pos > 22500 ORDER BY pos', 256, 3);
CREATE TEMP TABLE d_raw AS SELECT * FROM ts_matrix_profile_ab((SELECT a FROM ab), (SELECT b FROM ab), 100, normalized => false);
CREATE TEMP TABLE d_raw_ba AS
  SELECT * FROM ts_matrix_profile_ab((SELECT b FROM ab), (SELECT a[1:9000] FROM ab), 50, 300, normalized => false);
CREATE TEMP TABLE d_gaps AS SELECT * FROM ts_matrix_profile_ab((SELECT a FROM ab_gaps), (SELECT b FROM ab_gaps), 60);
CREATE TEMP TABLE d_gaps_raw AS
  SELECT * FROM ts_matrix_profile_ab((SELECT b FROM ab_gaps), (SELECT a FROM ab_gaps), 60, normalized => false);
CREATE TEMP TABLE d_self_raw_gaps AS
  SELECT (SELECT count(*) FROM ts_matrix_profile_ab((SELECT a FROM ab_gaps), (SELECT a FROM ab_gaps), 64, 17, normalized => false) x
            FULL JOIN ts_matrix_profile((SELECT a FROM ab_gaps), 64, 17, normalized => false) y USING (pos)
            WHERE x.neighbor IS DISTINCT FROM y.neighbor OR x.distance IS DISTINCT FROM y.distance) AS differ;
CREATE TEMP TABLE d_disc_gaps AS
  SELECT * FROM ts_discords_ab((SELECT a FROM ab_gaps), (SELECT b FROM ab_gaps), 60, 3, normalized => false);
CREATE TEMP TABLE d_backend AS SELECT backend FROM ts_last_run();

SELECT set_config('tsmine.backend', 'cpu', true);
SELECT is((SELECT count(*)::int FROM ts_matrix_profile_ab((SELECT a FROM ab), (SELECT b FROM ab), 100) c
           FULL JOIN d_ab g USING (pos)
           WHERE c.neighbor IS DISTINCT FROM g.neighbor OR c.distance IS DISTINCT FROM g.distance), 0,
          'AB profile, a longer than b: CPU = configured backend, bit for bit');
SELECT is((SELECT count(*)::int FROM ts_matrix_profile_ab((SELECT b FROM ab), (SELECT a FROM ab), 100) c
           FULL JOIN d_ba g USING (pos)
           WHERE c.neighbor IS DISTINCT FROM g.neighbor OR c.distance IS DISTINCT FROM g.distance), 0,
          'AB profile, a shorter than b: CPU = configured backend, bit for bit');
SELECT is((SELECT count(*)::int FROM ts_matrix_profile_ab((SELECT a FROM ab), (SELECT a[1:9000] FROM ab), 50, 300) c
           FULL JOIN d_excl g USING (pos)
           WHERE c.neighbor IS DISTINCT FROM g.neighbor OR c.distance IS DISTINCT FROM g.distance), 0,
          'AB profile with an exclusion zone: CPU = configured backend, bit for bit');
SELECT is((SELECT count(*)::int FROM d_excl WHERE neighbor IS NOT NULL AND abs(pos - neighbor) < 300), 0,
          'and no neighbour within the exclusion zone');
SELECT is((SELECT count(*)::int FROM d_ab), 12000 - 100 + 1, 'a row per window of a');
SELECT ok((SELECT min(neighbor) >= 1 AND max(neighbor) <= 8000 - 100 + 1 FROM d_ab), 'neighbours are windows of b');
SELECT is((SELECT differ::int FROM d_self), 0, 'a = b with exclusion_zone 17: the self-join''s rows on the configured backend');
SELECT is((SELECT count(*)::int FROM ts_matrix_profile_ab((SELECT a FROM ab), (SELECT a FROM ab), 64, 17) x
           FULL JOIN ts_matrix_profile((SELECT a FROM ab), 64, 17) y USING (pos)
           WHERE x.neighbor IS DISTINCT FROM y.neighbor OR x.distance IS DISTINCT FROM y.distance), 0,
          'and on the CPU');
SELECT results_eq(
  $$ SELECT rank, pos, distance, neighbor FROM ts_discords_ab('SELECT v FROM ecg WHERE pos <= 22500 ORDER BY pos', 'SELECT v FROM ecg WHERE pos > 22500 ORDER BY pos', 256, 3) $$,
  $$ SELECT rank, pos, distance, neighbor FROM d_disc $$,
  'ECG halves: discords of the first half relative to the second, CPU = configured backend');
SELECT is((SELECT pos FROM d_disc WHERE rank = 1), 4207::bigint, 'and the first is the known anomaly (4207)');
SELECT results_eq(
  $$ SELECT rank, pos_a, pos_b, distance FROM ts_motifs_ab('SELECT v FROM ecg WHERE pos <= 22500 ORDER BY pos', 'SELECT v FROM ecg WHERE pos > 22500 ORDER BY pos', 256, 3) $$,
  $$ SELECT rank, pos_a, pos_b, distance FROM d_mot $$,
  'ECG halves: motif pairs between them, CPU = configured backend');

-- raw values and gaps
SELECT is((SELECT count(*)::int FROM ts_matrix_profile_ab((SELECT a FROM ab), (SELECT b FROM ab), 100, normalized => false) c
           FULL JOIN d_raw g USING (pos)
           WHERE c.neighbor IS DISTINCT FROM g.neighbor OR c.distance IS DISTINCT FROM g.distance), 0,
          'raw AB profile, a longer than b: CPU = configured backend, bit for bit');
SELECT is((SELECT count(*)::int FROM ts_matrix_profile_ab((SELECT b FROM ab), (SELECT a[1:9000] FROM ab), 50, 300, normalized => false) c
           FULL JOIN d_raw_ba g USING (pos)
           WHERE c.neighbor IS DISTINCT FROM g.neighbor OR c.distance IS DISTINCT FROM g.distance), 0,
          'raw AB profile with an exclusion zone, a shorter than b: CPU = configured backend, bit for bit');
SELECT ok((SELECT count(*) = count(distance) AND min(distance) > 0 FROM d_raw), 'raw: every window of a has a distance');
SELECT is((SELECT count(*)::int FROM ts_matrix_profile_ab((SELECT a FROM ab_gaps), (SELECT b FROM ab_gaps), 60) c
           FULL JOIN d_gaps g USING (pos)
           WHERE c.neighbor IS DISTINCT FROM g.neighbor OR c.distance IS DISTINCT FROM g.distance), 0,
          'AB profile with gaps in a and b: CPU = configured backend, bit for bit');
SELECT is((SELECT count(*)::int FROM ts_matrix_profile_ab((SELECT b FROM ab_gaps), (SELECT a FROM ab_gaps), 60, normalized => false) c
           FULL JOIN d_gaps_raw g USING (pos)
           WHERE c.neighbor IS DISTINCT FROM g.neighbor OR c.distance IS DISTINCT FROM g.distance), 0,
          'raw AB profile with gaps in a and b: CPU = configured backend, bit for bit');
SELECT is((SELECT count(*)::int FROM d_gaps WHERE (distance IS NULL) <> EXISTS (
             SELECT 1 FROM generate_series(pos, pos + 59) i WHERE i % 97 = 0)), 0,
          'gaps: exactly the windows of a holding a NULL have no distance');
SELECT is((SELECT count(*)::int FROM d_gaps WHERE neighbor BETWEEN 15000 - 12000 - 59 AND 15040 - 12000
             OR neighbor BETWEEN 19000 - 12000 - 59 AND 19000 - 12000), 0,
          'gaps: no neighbour holds a NaN or an infinity of b');
SELECT is((SELECT count(*)::int FROM d_gaps_raw WHERE neighbor IS NOT NULL AND EXISTS (
             SELECT 1 FROM generate_series(neighbor, neighbor + 59) i WHERE i % 97 = 0)), 0,
          'raw values with gaps: no neighbour holds a NULL of a');
SELECT is((SELECT differ::int FROM d_self_raw_gaps), 0,
          'a = b with gaps, raw values, exclusion_zone 17: the raw self-join''s rows on the configured backend');
SELECT results_eq(
  $$ SELECT rank, pos, distance, neighbor FROM ts_discords_ab((SELECT a FROM ab_gaps), (SELECT b FROM ab_gaps), 60, 3, normalized => false) $$,
  $$ SELECT rank, pos, distance, neighbor FROM d_disc_gaps $$,
  'raw discords with gaps: CPU = configured backend');
SELECT is((SELECT count(*)::int FROM d_disc_gaps d JOIN d_gaps g USING (pos) WHERE g.distance IS NULL), 0,
          'and none of them holds a gap');
SELECT is((SELECT count(*)::int FROM ts_motifs_ab((SELECT a FROM ab_gaps), array_fill('NaN'::float8, ARRAY[500]), 60, 3)), 0,
          'b all gaps: no motif pairs, no error');

-- errors (22023), in the array and the query forms
SELECT throws_ok($$ SELECT * FROM ts_matrix_profile_ab('{1,2,3,4,5,6}'::float8[], '{1,2,3}'::float8[], 4) $$, '22023',
                 'window length m = 4 is more than the length 3 of series b', 'm > length of b: 22023');
SELECT throws_ok($$ SELECT * FROM ts_matrix_profile_ab('SELECT 1.0', 'SELECT generate_series(1, 10)::float8', 3) $$, '22023',
                 'window length m = 3 is more than the length 1 of series a', 'm > length of a (query form): 22023');
SELECT throws_ok($$ SELECT * FROM ts_discords_ab('{1,2,3,4,5,6}'::float8[], '{1,2,3,4,5,6}'::float8[], 3, exclusion_zone => -2) $$,
                 '22023', 'exclusion_zone must be at least 0, not -2', 'a negative exclusion zone: 22023');
SELECT throws_ok($$ SELECT * FROM ts_motifs_ab('{1,2,3,4,5,6}'::float8[], '{1,2,3,4,5,6}'::float8[], 2) $$, '22023',
                 'm must be at least 3, not 2', 'm < 3: 22023');
SELECT throws_ok($$ SELECT * FROM ts_discords_ab('SELECT 1.0', 'SELECT 1.0', 3, min_distance => -1) $$, '22023',
                 NULL, 'a negative min_distance: 22023');
SELECT throws_ok($$ SELECT * FROM ts_matrix_profile_ab('{1,2,3,4,5,6}'::float8[], '{1,NULL,3,4,5,6}'::float8[], 3, gaps => 'error') $$,
                 '22004', 'b contains a NULL at position 2', 'gaps => ''error'': a NULL in b is an error');
SELECT throws_ok($$ SELECT * FROM ts_matrix_profile_ab('{1e308,-1e308,1e308,-1e308}'::float8[], '{-1e308,-1e308,-1e308,-1e308}'::float8[], 3,
                                                      normalized => false) $$,
                 '22003', NULL, 'raw values: a distance past the float64 range is 22003');
SELECT ok((SELECT backend FROM d_backend) IN ('cpu', 'gpu'), 'the configured backend ran the calls');

-- the timed forms: the same rows, with the times of a's and b's windows
SELECT results_eq(
  $$ SELECT rank, pos, distance, neighbor, start_time, neighbor_time FROM ts_discords_ab(NULL::bigint,
       'SELECT pos * 10, v FROM ecg WHERE pos <= 22500 ORDER BY pos', 'SELECT pos * 10, v FROM ecg WHERE pos > 22500 ORDER BY pos', 256, 3) $$,
  $$ SELECT rank, pos, distance, neighbor, pos * 10, (neighbor + 22500) * 10 FROM d_disc ORDER BY rank $$,
  'timed query form: the discords with the times of a''s window and of b''s');
SELECT results_eq(
  $$ SELECT pos, distance, neighbor, start_time, neighbor_time FROM ts_matrix_profile_ab(
       ARRAY(SELECT i::bigint FROM generate_series(1, 12000) i), (SELECT a FROM ab),
       ARRAY(SELECT i::bigint FROM generate_series(12001, 20000) i), (SELECT b FROM ab), 100) ORDER BY pos $$,
  $$ SELECT pos, distance, neighbor, pos, neighbor + 12000 FROM d_ab ORDER BY pos $$,
  'timed array form: the profile with the times of a''s window and of b''s');
SELECT throws_ok($$ SELECT * FROM ts_motifs_ab('{1,2,3}'::bigint[], '{1,2,3,4}'::float8[], '{1,2,3,4}'::bigint[], '{1,2,3,4}'::float8[], 3) $$,
                 '22023', NULL, 'times and values of different lengths: 22023');

SELECT * FROM finish();
ROLLBACK;
