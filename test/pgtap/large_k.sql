-- Huge k sizes nothing: every method returns what the series holds, the same
-- rows as with a k that fits (issue: hardening, large k).
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS tsmine;
SELECT plan(10);

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
-- deep in the ranking, where near-ties abound: one ranking rule, the same rows
SELECT results_eq(
  $$SELECT * FROM ts_discords((SELECT a FROM walk), 16, 2147483647, method => 'pd3')$$,
  $$SELECT * FROM ts_discords((SELECT a FROM walk), 16, 1000, method => 'matrix_profile')$$,
  '... and so does pd3, row for row the profile''s');
-- 1,985 windows of 16 hold at most 125 discords: k = 124 lowers r step by
-- step, a larger k starts at r = 0; the rows agree
SELECT results_eq(
  $$SELECT rank, pos, neighbor FROM ts_discords((SELECT a FROM walk), 16, 2147483647, method => 'pd3') WHERE rank <= 124$$,
  $$SELECT rank, pos, neighbor FROM ts_discords((SELECT a FROM walk), 16, 124, method => 'pd3')$$,
  'pd3 with k = 124 gives the first rows of pd3 with k = 2^31 - 1');
-- every motif pair the series holds: the profile's selection and MK agree,
-- ranks by distance, no window within m of a member of another pair
CREATE TEMP TABLE all_pairs AS
  SELECT * FROM ts_motifs((SELECT a FROM walk), 16, 2147483647, method => 'matrix_profile');
SELECT results_eq(
  $$SELECT rank, pos_a, pos_b FROM all_pairs ORDER BY rank$$,
  $$SELECT rank, pos_a, pos_b FROM ts_motifs((SELECT a FROM walk), 16, 2147483647, method => 'mk')$$,
  'ts_motifs with k = 2^31 - 1: the matrix profile method returns what MK returns, on 2,000 points');
SELECT ok((SELECT bool_and(d1.distance <= d2.distance) FROM all_pairs d1 JOIN all_pairs d2 ON d2.rank = d1.rank + 1)
          AND (SELECT count(*) FROM all_pairs) > 20,
          '... ranked by distance');
SELECT is_empty(
  $$SELECT 1 FROM all_pairs p, all_pairs q, LATERAL (VALUES (p.pos_a), (p.pos_b)) u(w), LATERAL (VALUES (q.pos_a), (q.pos_b)) v(w)
    WHERE p.rank < q.rank AND abs(u.w - v.w) < 16$$,
  '... and no window within m of a member of another pair');
SELECT results_eq(
  $$SELECT pos FROM ts_match((SELECT a FROM walk), (SELECT a[100:131] FROM walk), k => 2147483647)$$,
  $$SELECT pos FROM ts_match((SELECT a FROM walk), (SELECT a[100:131] FROM walk))$$,
  'ts_match with k = 2^31 - 1 equals k NULL (all)');

SELECT * FROM finish();
