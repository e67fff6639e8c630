-- The matrix profile and ts_match on hostile inputs (issue #15): a glitch
-- spike leaves every other window's distance as it was, x and 2^k·x give the
-- same rows, ±1e308 and subnormal values give finite, right answers, a 1e9
-- offset changes nothing.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS tsmine;
SELECT plan(18);

CREATE FUNCTION pg_temp.close(a float8, b float8) RETURNS bool AS
  $$ SELECT abs(a - b) <= 1e-9 * abs(b) + 1e-12 $$ LANGUAGE sql;
-- the issue's signal, and the same with position 300 replaced by a glitch
CREATE TEMP TABLE sig AS SELECT i, sin(i * 0.3) + 0.1 * sin(i * 1.7) AS v FROM generate_series(1, 400) i;
CREATE TEMP TABLE clean AS SELECT * FROM ts_matrix_profile((SELECT array_agg(v ORDER BY i) FROM sig), 10);
CREATE TEMP TABLE glitch (g float8);
INSERT INTO glitch VALUES (1e9), (1e15), (-1e15), (1e20), (1e300);
CREATE TEMP TABLE spiked AS
  SELECT g, p.* FROM glitch,
    LATERAL ts_matrix_profile((SELECT array_agg(CASE WHEN i = 300 THEN g ELSE v END ORDER BY i) FROM sig), 10) p;

-- the repro: positions 50 and 100 as in the glitch-free series
SELECT is((SELECT round(distance::numeric, 4) FROM clean WHERE pos = 50), 0.1346, 'clean series: pos 50 at 0.1346');
SELECT is((SELECT round(distance::numeric, 3) FROM clean WHERE pos = 100), 0.115, 'clean series: pos 100 at 0.115');
SELECT is((SELECT count(*)::int FROM spiked s JOIN clean c USING (pos)
           WHERE pos IN (50, 100, 150, 200) AND (NOT pg_temp.close(s.distance, c.distance) OR s.neighbor <> c.neighbor)), 0,
          'a glitch of 1e9, 1e15, -1e15, 1e20 or 1e300 at position 300: positions 50, 100, 150, 200 unchanged (1e-9 relative)');
-- every window that holds no glitch, and whose neighbours hold none, keeps its distance and neighbour
SELECT is((SELECT count(*)::int FROM spiked s JOIN clean c USING (pos)
           WHERE pos NOT BETWEEN 291 AND 300 AND c.neighbor NOT BETWEEN 291 AND 300 AND s.neighbor NOT BETWEEN 291 AND 300
             AND (NOT pg_temp.close(s.distance, c.distance) OR s.neighbor <> c.neighbor)), 0,
          'every window away from the glitch: the same distance and neighbour');
SELECT cmp_ok((SELECT count(*)::int FROM spiked WHERE pos NOT BETWEEN 291 AND 300), '>', 5 * 370, '... which is nearly all of them');
-- the query form and the arrays form give the same profile
CREATE TEMP TABLE sig_spiked AS SELECT i, CASE WHEN i = 300 THEN 1e15 ELSE v END AS v FROM sig;
SELECT is((SELECT count(*)::int FROM ts_matrix_profile('SELECT v FROM sig_spiked ORDER BY i', 10) q
           JOIN spiked s ON s.g = 1e15 AND s.pos = q.pos WHERE q.distance <> s.distance OR q.neighbor <> s.neighbor), 0,
          'the query form: the same rows');
SELECT is((SELECT count(*)::int FROM ts_matrix_profile_arrays('SELECT v FROM sig_spiked ORDER BY i', 10) a,
                  spiked s WHERE s.g = 1e15 AND (a.distance[s.pos] <> s.distance OR a.neighbor[s.pos] <> s.neighbor)), 0,
          'the arrays form: the same profile');

-- units: x and 2^k·x give the same rows, bit for bit
SELECT is((SELECT count(*)::int FROM (VALUES (-1000), (-300), (150), (1000)) k(k)
             CROSS JOIN LATERAL ts_matrix_profile((SELECT array_agg(v * 2::float8 ^ k.k ORDER BY i) FROM sig), 10) s
             JOIN clean c USING (pos)
           WHERE s.distance <> c.distance OR s.neighbor <> c.neighbor), 0,
          'x times 2^-1000, 2^-300, 2^150 and 2^1000: the same rows, bit for bit');
SELECT is((SELECT count(*)::int FROM clean c JOIN
             ts_matrix_profile((SELECT array_agg(v * 1.6e308 ORDER BY i) FROM sig), 10) s USING (pos)
           WHERE NOT pg_temp.close(s.distance, c.distance) OR s.neighbor <> c.neighbor), 0,
          'x times 1.6e308: finite, the same rows');
CREATE TEMP TABLE ints AS SELECT i, round(1000 * (sin(i * 0.3) + 0.1 * sin(i * 1.7))) AS v FROM generate_series(1, 400) i;
SELECT is((SELECT count(*)::int FROM ts_matrix_profile((SELECT array_agg(v ORDER BY i) FROM ints), 10) c JOIN
             ts_matrix_profile((SELECT array_agg(v * 2::float8 ^ -1074 ORDER BY i) FROM ints), 10) s USING (pos)
           WHERE s.distance <> c.distance OR s.neighbor <> c.neighbor), 0,
          'subnormal values (integers times 2^-1074): the integers'' rows');
SELECT is((SELECT count(*)::int FROM ts_matrix_profile((SELECT array_agg(CASE WHEN i % 2 = 0 THEN 1e308 ELSE -1e308 END
                                                                  + 5e307 * v ORDER BY i) FROM sig), 10)
           WHERE distance IS NULL OR distance = 'NaN' OR distance = 'Infinity'), 0,
          'values alternating between +-1e308: every distance finite');

-- a glitch at the start of a block of 4096 windows (position 4097), whose
-- value the block's window statistics were taken relative to: a random walk
-- keeps every far window's distance and neighbour
SELECT setseed(0.15);
CREATE TEMP TABLE walk AS SELECT i, sum(random() - 0.5) OVER (ORDER BY i) AS v FROM generate_series(1, 6000) i;
CREATE TEMP TABLE walk_clean AS SELECT * FROM ts_matrix_profile((SELECT array_agg(v ORDER BY i) FROM walk), 50);
CREATE TEMP TABLE walk_spiked AS
  SELECT * FROM ts_matrix_profile((SELECT array_agg(CASE WHEN i = 4097 THEN 1e15 ELSE v END ORDER BY i) FROM walk), 50);
SELECT is((SELECT count(*)::int FROM walk_spiked s JOIN walk_clean c USING (pos)
           WHERE pos NOT BETWEEN 4048 AND 4097 AND c.neighbor NOT BETWEEN 4048 AND 4097
             AND s.neighbor NOT BETWEEN 4048 AND 4097
             AND (NOT pg_temp.close(s.distance, c.distance) OR s.neighbor <> c.neighbor)), 0,
          '1e15 at position 4097 (a stats block''s first value): every window away from it keeps its distance and neighbour');
SELECT cmp_ok((SELECT count(*)::int FROM walk_spiked WHERE pos > 4097), '>', 1800, '... the block''s windows after it included');

-- a 1e9 offset: the same profile as without it
CREATE TEMP TABLE off AS SELECT i, 1e9 + 1e-6 * v AS v FROM sig;
SELECT is((SELECT count(*)::int FROM ts_matrix_profile((SELECT array_agg(v ORDER BY i) FROM off), 10) o JOIN
             ts_matrix_profile((SELECT array_agg(v - 1e9 ORDER BY i) FROM off), 10) s USING (pos)
           WHERE NOT pg_temp.close(o.distance, s.distance)), 0,
          '1e9 + 1e-6 signal: the distances of the series less 1e9 (exact)');

-- ts_match: the query and the series z-normalised each at its own scale
SELECT is((SELECT count(*)::int FROM ts_match(ARRAY[1, 2, 3, 4, 5, 6, 7, 8]::float8[], '{1e308,-1e308,1e308}')), 2,
          'ts_match of {1e308,-1e308,1e308} in 1..8: two non-overlapping matches');
SELECT is((SELECT count(*)::int FROM ts_match(ARRAY[1, 2, 3, 4, 5, 6, 7, 8]::float8[], '{1e308,-1e308,1e308}')
           WHERE abs(distance - sqrt(6)) > 1e-12), 0,
          '... at distance sqrt(6) (not the flat window''s 1.732)');
SELECT results_eq(
  $$SELECT rank, pos, distance FROM ts_match((SELECT array_agg(v * 2::float8 ^ 900 ORDER BY i) FROM sig),
                                            (SELECT array_agg(v * 2::float8 ^ -1000 ORDER BY i) FROM sig WHERE i BETWEEN 40 AND 59), k => 5)$$,
  $$SELECT rank, pos, distance FROM ts_match((SELECT array_agg(v ORDER BY i) FROM sig),
                                            (SELECT array_agg(v ORDER BY i) FROM sig WHERE i BETWEEN 40 AND 59), k => 5)$$,
  'ts_match of the series times 2^900 and the pattern times 2^-1000: the same rows');
SELECT is((SELECT (pos, distance)::text FROM ts_match((SELECT array_agg(v * 2::float8 ^ -1074 ORDER BY i) FROM ints),
                                                      (SELECT array_agg(v ORDER BY i) FROM ints WHERE i BETWEEN 40 AND 59), k => 1)),
          '(40,0)', 'ts_match in subnormal values (integers times 2^-1074): the pattern''s own window first, at exactly 0');

SELECT * FROM finish();
