-- Huge k sizes nothing: every method returns what the series holds, the same
-- rows as with a k that fits (issue: hardening, large k).
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS tsmine;
SELECT plan(6);

CREATE TEMP TABLE s20 AS SELECT array_agg(sin(i * 0.7) + (i % 7) * 0.1 ORDER BY i) AS a FROM generate_series(1, 20) i;
CREATE TEMP TABLE walk AS SELECT array_agg(v ORDER BY i) AS a
  FROM (SELECT i, sum(sin(i * 12.9898) * 0.5) OVER (ORDER BY i) AS v FROM generate_series(1, 2000) i) w;

SELECT results_eq(
  $$SELECT pos_a, pos_b FROM ts_motifs((SELECT a FROM s20), 3, 100000000, method => 'matrix_profile')$$,
  $$SELECT pos_a, pos_b FROM ts_motifs((SELECT a FROM s20), 3, 100000000, method => 'mk')$$,
  'ts_motifs with k = 10^8: the matrix profile method returns what MK returns');
SELECT results_eq(
  $$SELECT pos_a, pos_b FROM ts_motifs((SELECT a FROM s20), 3, 2147483647, method => 'matrix_profile')$$,
  $$SELECT pos_a, pos_b FROM ts_motifs((SELECT a FROM s20), 3, 2147483647, method => 'auto')$$,
  '... and with k = 2^31 - 1, as auto does');
SELECT results_eq(
  $$SELECT pos_a, pos_b FROM ts_motifs((SELECT a FROM walk), 16, 2147483647, method => 'matrix_profile')$$,
  $$SELECT pos_a, pos_b FROM ts_motifs((SELECT a FROM walk), 16, 1000, method => 'matrix_profile')$$,
  'every motif pair of a 2,000-point series with k = 2^31 - 1 equals k = 1000');
SELECT results_eq(
  $$SELECT pos FROM ts_discords((SELECT a FROM walk), 16, 2147483647)$$,
  $$SELECT pos FROM ts_discords((SELECT a FROM walk), 16, 1000)$$,
  'ts_discords with k = 2^31 - 1 equals k = 1000');
-- (pd3 against the profile deep into the ranking is a question of near-ties,
-- which the issue on exactness covers; here each method against itself)
SELECT results_eq(
  $$SELECT pos FROM ts_discords((SELECT a FROM walk), 16, 2147483647, method => 'pd3')$$,
  $$SELECT pos FROM ts_discords((SELECT a FROM walk), 16, 1000, method => 'pd3')$$,
  '... and so does pd3');
SELECT results_eq(
  $$SELECT pos FROM ts_match((SELECT a FROM walk), (SELECT a[100:131] FROM walk), k => 2147483647)$$,
  $$SELECT pos FROM ts_match((SELECT a FROM walk), (SELECT a[100:131] FROM walk))$$,
  'ts_match with k = 2^31 - 1 equals k NULL (all)');

SELECT * FROM finish();
