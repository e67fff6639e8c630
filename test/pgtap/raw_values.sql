-- normalized => false: the Euclidean distance of the raw values (STUMPY's
-- aamp) in every form of ts_matrix_profile, ts_matrix_profile_arrays,
-- ts_discords, ts_motifs and ts_match; against a brute-force SQL oracle,
-- with constant windows, offsets, power-of-two scales, ties, and the errors.
-- Run with tsmine.backend = gpu on a GPU host, it checks the GPU path too.
BEGIN;
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS tsmine;
SELECT plan(29);

-- a random walk with a flat stretch at an integer level and a level shift
SELECT setseed(0.5);
CREATE TEMP TABLE w AS
  SELECT i, CASE WHEN i BETWEEN 100 AND 140 THEN 3.0
                 ELSE sum(random() - 0.5) OVER (ORDER BY i) + CASE WHEN i > 200 THEN 5 ELSE 0 END END AS v
  FROM generate_series(1, 300) i;
CREATE TEMP TABLE wa AS SELECT array_agg(v ORDER BY i) AS a, array_agg(i::bigint ORDER BY i) AS t FROM w;

-- the oracle: every admissible pair's raw distance (m = 8, exclusion 3), the
-- nearest by distance, then position
CREATE TEMP TABLE pairs AS
  SELECT p.pos, q.pos AS nb,
         sqrt((SELECT sum((wa.a[p.pos + t] - wa.a[q.pos + t]) ^ 2) FROM generate_series(0, 7) t)) AS d
  FROM wa, generate_series(1, 293) p(pos), generate_series(1, 293) q(pos) WHERE abs(p.pos - q.pos) >= 3;
CREATE TEMP TABLE oracle AS
  SELECT DISTINCT ON (pos) pos, nb, d FROM pairs ORDER BY pos, d, nb;
CREATE FUNCTION pg_temp.close(a float8, b float8) RETURNS bool AS
  $$ SELECT abs(a - b) <= 1e-9 * greatest(1e-300, abs(a), abs(b)) $$ LANGUAGE sql;

CREATE TEMP TABLE mp AS SELECT * FROM ts_matrix_profile((SELECT a FROM wa), 8, 3, normalized => false);
SELECT is((SELECT count(*)::int FROM mp JOIN oracle o USING (pos)
           WHERE NOT pg_temp.close(mp.distance, o.d)), 0,
          'raw profile: every distance equals the brute-force oracle''s');
SELECT is((SELECT count(*)::int FROM mp JOIN oracle o USING (pos)
           WHERE mp.neighbor <> o.nb AND NOT pg_temp.close((SELECT d FROM pairs WHERE pairs.pos = mp.pos AND nb = mp.neighbor), o.d)),
          0, '... and every neighbour is the oracle''s, or a tie with it');
SELECT is((SELECT count(*)::int FROM mp), 293, '... one row per window');
SELECT is((SELECT distance FROM mp WHERE pos = 100), 0::float8,
          'flat windows are ordinary: a flat window''s neighbour is another one at the same level, at 0');
SELECT is((SELECT neighbor FROM mp WHERE pos = 100), 103::bigint, '... the nearest admissible one');
SELECT isnt((SELECT distance FROM ts_matrix_profile((SELECT a FROM wa), 8, 3) WHERE pos = 1),
            (SELECT distance FROM mp WHERE pos = 1), 'normalized => true (the default) is the z-normalised profile');

-- every other form gives the same rows
CREATE TEMP TABLE wt AS SELECT i, v FROM w;
SELECT results_eq($$SELECT pos, distance, neighbor FROM ts_matrix_profile('SELECT v FROM wt ORDER BY i', 8, 3, normalized => false)$$,
                  'SELECT pos, distance, neighbor FROM mp', 'query form = array form');
SELECT results_eq($$SELECT d.distance, d.neighbor FROM ts_matrix_profile_arrays((SELECT a FROM wa), 8, 3, normalized => false) a,
                           unnest(a.distance, a.neighbor) d(distance, neighbor)$$,
                  'SELECT distance, neighbor FROM mp', 'ts_matrix_profile_arrays = the rows');
SELECT results_eq($$SELECT d.distance, d.neighbor FROM ts_matrix_profile_arrays('SELECT v FROM wt ORDER BY i', 8, 3, normalized => false) a,
                           unnest(a.distance, a.neighbor) d(distance, neighbor)$$,
                  'SELECT distance, neighbor FROM mp', 'ts_matrix_profile_arrays, query form = the rows');
SELECT results_eq($$SELECT pos, distance, neighbor, start_time, neighbor_time
                    FROM ts_matrix_profile((SELECT t FROM wa), (SELECT a FROM wa), 8, 3, normalized => false)$$,
                  'SELECT pos, distance, neighbor, pos, neighbor FROM mp', 'timed array form: the same rows, with times');
SELECT results_eq($$SELECT pos, distance, neighbor FROM ts_matrix_profile(NULL::bigint, 'SELECT i::bigint, v FROM wt ORDER BY i', 8, 3, normalized => false)$$,
                  'SELECT pos, distance, neighbor FROM mp', 'timed query form: the same rows');
SELECT results_eq($$SELECT d.distance FROM ts_matrix_profile_arrays((SELECT t FROM wa), (SELECT a FROM wa), 8, 3, normalized => false) a,
                           unnest(a.distance) d(distance)$$,
                  'SELECT distance FROM mp', 'timed ts_matrix_profile_arrays: the same distances');

-- scale: 2^k times the series gives 2^k times every distance, exactly; an offset changes nothing
SELECT is((SELECT count(*)::int FROM ts_matrix_profile((SELECT array_agg(v * 2::float8 ^ 600 ORDER BY i) FROM w), 8, 3, normalized => false) s
           JOIN mp USING (pos) WHERE s.neighbor <> mp.neighbor OR s.distance <> mp.distance * 2::float8 ^ 600), 0,
          'the series times 2^600: every distance times 2^600, exactly, and the same neighbours');
SELECT is((SELECT count(*)::int FROM ts_matrix_profile((SELECT array_agg(v * 2::float8 ^ -900 ORDER BY i) FROM w), 8, 3, normalized => false) s
           JOIN mp USING (pos) WHERE s.neighbor <> mp.neighbor OR s.distance <> mp.distance * 2::float8 ^ -900), 0,
          'the series times 2^-900: every distance times 2^-900, exactly');
SELECT is((SELECT count(*)::int FROM ts_matrix_profile((SELECT array_agg(v + 1e9 ORDER BY i) FROM w), 8, 3, normalized => false) s
           JOIN pairs p ON p.pos = s.pos AND p.nb = s.neighbor JOIN oracle o ON o.pos = s.pos
           WHERE abs(s.distance - o.d) > 1e-5 * greatest(o.d, 1e-3)), 0,
          'an offset of 1e9: the distances of the values as stored (to their rounding)');
SELECT throws_ok($$SELECT * FROM ts_matrix_profile(ARRAY[1.7e308, 1.7e308, -1.7e308, 1.7e308, 1.7e308, -1.7e308, 1.7e308, 1.7e308]::float8[], 4, 4, normalized => false)$$,
                 '22003', NULL, 'a distance beyond the float64 range: an error (22003)');

-- exact repeats tie to the smaller position
SELECT is((SELECT array_agg(neighbor ORDER BY pos)
           FROM ts_matrix_profile((SELECT array_agg((i % 5)::float8 ORDER BY i) FROM generate_series(0, 39) i), 5, 3, normalized => false)
           WHERE pos IN (1, 12, 30)),
          ARRAY[6, 2, 5]::bigint[], 'exact repeats: the smallest admissible position');

-- discords: the profile path, by raw distances; pd3 is an error, auto the profile
SELECT is((SELECT format('%s %s', pos, neighbor) FROM ts_discords((SELECT a FROM wa), 8, 1, exclusion_zone => 3, normalized => false)),
          (SELECT format('%s %s', pos, nb) FROM oracle ORDER BY d DESC, pos LIMIT 1),
          'top discord: the window farthest from its raw nearest neighbour, and that neighbour');
SELECT ok((SELECT pg_temp.close(distance, (SELECT max(d) FROM oracle))
           FROM ts_discords((SELECT a FROM wa), 8, 1, exclusion_zone => 3, normalized => false)), '... at the oracle''s distance');
SELECT is((SELECT array_agg(pos ORDER BY rank) FROM ts_discords((SELECT a FROM wa), 8, 3, exclusion_zone => 3, normalized => false)),
          (SELECT array_agg(pos ORDER BY rank) FROM ts_discords((SELECT a FROM wa), 8, 3, exclusion_zone => 3, method => 'matrix_profile', normalized => false)),
          'auto = matrix_profile');
SELECT throws_ok($$SELECT * FROM ts_discords((SELECT a FROM wa), 8, 3, method => 'pd3', normalized => false)$$,
                 '0A000', 'method pd3 does not support normalized => false', 'pd3 with raw values: 0A000');
CREATE TEMP TABLE r10 AS SELECT d AS r FROM oracle ORDER BY d DESC LIMIT 1 OFFSET 9;
SELECT is((SELECT array_agg(pos ORDER BY pos) FROM ts_discords((SELECT a FROM wa), 8, NULL, (SELECT r FROM r10) * (1 - 1e-12),
                                                              exclusion_zone => 3, normalized => false)),
          (SELECT array_agg(pos::bigint ORDER BY pos) FROM oracle WHERE d >= (SELECT r FROM r10) * (1 - 1e-12)),
          'range discords: min_distance in the data''s units, every window at least that far from its neighbour');

-- motifs: the closest pair by raw distance; mk is an error
SELECT is((SELECT format('%s %s', pos_a, pos_b) FROM ts_motifs((SELECT a FROM wa), 8, 1, exclusion_zone => 3, normalized => false)),
          (SELECT format('%s %s', least(pos, nb), greatest(pos, nb)) FROM pairs ORDER BY d, least(pos, nb), greatest(pos, nb) LIMIT 1),
          'the top motif pair is the oracle''s closest pair');
SELECT ok((SELECT pg_temp.close(distance, (SELECT min(d) FROM pairs)) FROM ts_motifs((SELECT a FROM wa), 8, 1, exclusion_zone => 3, normalized => false)),
          '... at the oracle''s distance');
SELECT throws_ok($$SELECT * FROM ts_motifs((SELECT a FROM wa), 8, 1, method => 'mk', normalized => false)$$,
                 '0A000', 'method mk does not support normalized => false', 'mk with raw values: 0A000');

-- match: the raw distance of the pattern to every window
SELECT is((SELECT pos FROM ts_match((SELECT a FROM wa), (SELECT a[250:257] FROM wa), k => 1, normalized => false)),
          250::bigint, 'match finds the pattern''s own window first');
SELECT ok((SELECT bool_and(pg_temp.close(m.distance, p.d)) FROM ts_match((SELECT a FROM wa), (SELECT a[250:257] FROM wa), k => 5, normalized => false) m
           JOIN pairs p ON p.pos = 250 AND p.nb = m.pos WHERE m.rank > 1),
          '... then the others at their raw distances');
SELECT is((SELECT count(*)::int FROM ts_match((SELECT a FROM wa), (SELECT array_agg(x + 100) FROM unnest((SELECT a[250:257] FROM wa)) x),
                                          max_distance => 100, normalized => false)), 0,
          'a pattern 100 units higher matches nothing within 100 (its shape alone would)');

-- NULL normalized is an error, not a default
SELECT throws_ok($$SELECT * FROM ts_matrix_profile((SELECT a FROM wa), 8, normalized => NULL)$$,
                 '22004', 'normalized must not be NULL', 'normalized => NULL: an error');

SELECT * FROM finish();
ROLLBACK;
