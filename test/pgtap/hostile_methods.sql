-- Issue 15's repros for discords and motifs: a glitch spike, any scale, a
-- large offset and near-ties change neither the answer nor which method
-- gives it.  Every method returns the same rows (distances compared with =),
-- and those rows are the brute-force oracle's (stated here; positions 1-based).
BEGIN;
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS tsmine;
SELECT plan(18);

-- the issue's signal, with a spike of 1e9 at i = 300, and times f over the float64 range
CREATE TEMP TABLE sig AS
  SELECT array_agg(CASE WHEN i = 300 THEN 1e9 ELSE sin(i * 0.3) + 0.1 * sin(i * 1.7) END ORDER BY i) AS spiked
  FROM generate_series(1, 400) i;
CREATE TEMP TABLE scaled AS
  SELECT f, array_agg((sin(i * 0.3) + 0.1 * sin(i * 1.7)) * f ORDER BY i) AS a
  FROM generate_series(1, 400) i, unnest('{1e-300,1e-200,1e-100,1,1e100,1e160,1e300}'::float8[]) f GROUP BY f;
CREATE TEMP TABLE offs AS
  SELECT array_agg(1e9 + 1e-6 * (sin(i * 0.3) + 0.1 * sin(i * 1.7)) ORDER BY i) AS a FROM generate_series(1, 400) i;
CREATE TEMP TABLE ties AS
  SELECT array_agg(sin(i * 0.3) + 0.1 * sin(i * 1.7) + CASE WHEN i = 2000 THEN 0.8 ELSE 0 END ORDER BY i) AS a
  FROM generate_series(1, 40000) i;

CREATE FUNCTION pg_temp.discords(a float8[], m int, k int, method text)
  RETURNS TABLE (rank int, pos bigint, distance float8, neighbor bigint)
  AS $$ SELECT * FROM ts_discords(a, m, k, method => method) $$ LANGUAGE sql;

-- 1. a spike: the oracle's {298, 179, 189}, whatever the method
SELECT results_eq(
  $$SELECT pos FROM pg_temp.discords((SELECT spiked FROM sig), 10, 3, 'matrix_profile') ORDER BY rank$$,
  $$VALUES (298::bigint), (179), (189)$$,
  'item 1: ts_discords(y, 10, 3) with a spike of 1e9 is {298, 179, 189}');
SELECT results_eq(
  $$SELECT * FROM pg_temp.discords((SELECT spiked FROM sig), 10, 3, 'pd3')$$,
  $$SELECT * FROM pg_temp.discords((SELECT spiked FROM sig), 10, 3, 'matrix_profile')$$,
  '... and pd3 returns the same rows');
SELECT results_eq(
  $$SELECT pos_a, pos_b FROM ts_motifs((SELECT spiked FROM sig), 10, 2, method => 'mk')$$,
  $$VALUES (5::bigint, 382::bigint), (27, 341)$$,
  'item 1: ts_motifs(y, 10, 2) with a spike of 1e9 is (5, 382), (27, 341)');
SELECT results_eq(
  $$SELECT * FROM ts_motifs((SELECT spiked FROM sig), 10, 2, method => 'matrix_profile')$$,
  $$SELECT * FROM ts_motifs((SELECT spiked FROM sig), 10, 2, method => 'mk')$$,
  '... and the profile method returns the same rows');
SELECT results_eq(
  $$SELECT * FROM ts_discords_from_tiles((SELECT spiked FROM sig),
       (SELECT ts_matrix_profile_merge(ts_matrix_profile_tile((SELECT spiked FROM sig), 10, t, 3, 10))
        FROM generate_series(1, 3) t), 3)$$,
  $$SELECT * FROM pg_temp.discords((SELECT spiked FROM sig), 10, 3, 'pd3')$$,
  '... and so does ts_discords_from_tiles');

-- 2. units: the same rows at every scale, in every method (bit for bit under
-- an exact rescaling by 2^k; f = 1e-300 .. 1e300 rounds the values themselves)
SELECT results_eq(
  $$SELECT f, array_agg(pos ORDER BY rank) FROM scaled, pg_temp.discords(a, 10, 3, 'matrix_profile') GROUP BY f ORDER BY f$$,
  $$SELECT f, '{179,189,126}'::bigint[] FROM scaled ORDER BY f$$,
  'item 2: the signal times 1e-300 .. 1e300 has the discords {179, 189, 126}');
SELECT is_empty(
  $$SELECT f, d.* FROM scaled, pg_temp.discords(a, 10, 3, 'pd3') d
    EXCEPT SELECT f, d.* FROM scaled, pg_temp.discords(a, 10, 3, 'matrix_profile') d$$,
  '... at every scale pd3 returns the profile''s rows, distances and all');
SELECT is_empty(
  $$SELECT e, d.* FROM unnest('{-1000,-500,0,500,1000}'::int[]) e,
           pg_temp.discords((SELECT array_agg(v * 2::float8 ^ e ORDER BY o)
                              FROM unnest((SELECT a FROM scaled WHERE f = 1)) WITH ORDINALITY u (v, o)), 10, 3, 'pd3') d
    EXCEPT SELECT e, d.* FROM unnest('{-1000,-500,0,500,1000}'::int[]) e,
           pg_temp.discords((SELECT a FROM scaled WHERE f = 1), 10, 3, 'matrix_profile') d$$,
  '... and 2^k times the signal, k = -1000 .. 1000, gives the rows at 1 bit for bit');
SELECT is_empty(
  $$SELECT f, m.pos_a, m.pos_b FROM scaled, ts_motifs(a, 10, 2, method => 'mk') m
    EXCEPT SELECT f, m.pos_a, m.pos_b FROM scaled, ts_motifs((SELECT a FROM scaled WHERE f = 1), 10, 2, method => 'mk') m$$,
  'MK at every scale returns the pairs at 1');
SELECT is_empty(
  $$SELECT f, m.* FROM scaled, ts_motifs(a, 10, 2, method => 'matrix_profile') m
    EXCEPT SELECT f, m.* FROM scaled, ts_motifs(a, 10, 2, method => 'mk') m$$,
  '... and at every scale the profile method returns MK''s rows, distances and all');
SELECT results_eq(
  $$SELECT pos_a, pos_b FROM ts_motifs((SELECT a FROM scaled WHERE f = 1), 10, 2, method => 'mk')$$,
  $$VALUES (5::bigint, 382::bigint), (27, 341)$$,
  '... (5, 382), (27, 341)');
SELECT results_eq(
  $$SELECT pos, distance FROM ts_match(ARRAY[1,2,3,4,5,6,7,8]::float8[], '{1e308,-1e308,1e308}')$$,
  $$SELECT pos, distance FROM ts_match(ARRAY[1,2,3,4,5,6,7,8]::float8[], '{1,-1,1}')$$,
  'ts_match: a pattern at ±1e308 has the shape of {1, -1, 1}, not a flat window''s');

-- 3. a large offset: the oracle's {367, 85, 283} (85 and 283 are exact twins: the smaller first)
SELECT results_eq(
  $$SELECT pos FROM pg_temp.discords((SELECT a FROM offs), 10, 3, 'pd3') ORDER BY rank$$,
  $$VALUES (367::bigint), (85), (283)$$,
  'item 3: 1e9 + 1e-6 signal has the discords {367, 85, 283}');
SELECT results_eq(
  $$SELECT * FROM pg_temp.discords((SELECT a FROM offs), 10, 3, 'matrix_profile')$$,
  $$SELECT * FROM pg_temp.discords((SELECT a FROM offs), 10, 3, 'pd3')$$,
  '... the same rows by the profile');
SELECT results_eq(
  $$SELECT pos_a, pos_b, distance FROM ts_motifs((SELECT a FROM offs), 10, 2, method => 'mk')$$,
  $$VALUES (1::bigint, 378::bigint, 0::float8), (11, 388, 0)$$,
  'item 3: its motifs are exact repeats, at distance 0');
SELECT results_eq(
  $$SELECT * FROM ts_motifs((SELECT a FROM offs), 10, 2, method => 'matrix_profile')$$,
  $$SELECT * FROM ts_motifs((SELECT a FROM offs), 10, 2, method => 'mk')$$,
  '... the same pairs by the profile');

-- 4. near-ties at ordinary scale: the oracle's {1945, 4281, 731} by both methods
SELECT results_eq(
  $$SELECT pos, neighbor FROM pg_temp.discords((SELECT a FROM ties), 100, 3, 'matrix_profile') ORDER BY rank$$,
  $$VALUES (1945::bigint, 36314::bigint), (4281, 11381), (731, 7831)$$,
  'item 4: the 40,000-point series has the discords {1945, 4281, 731} (neighbours 36314, 11381, 7831)');
SELECT results_eq(
  $$SELECT * FROM pg_temp.discords((SELECT a FROM ties), 100, 3, 'pd3')$$,
  $$SELECT * FROM pg_temp.discords((SELECT a FROM ties), 100, 3, 'matrix_profile')$$,
  '... pd3 returns the same rows, distances and all');

SELECT * FROM finish();
ROLLBACK;
