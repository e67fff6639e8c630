-- Gaps: NULL, NaN and ±Infinity values are gaps by default (gaps => 'skip'):
-- a window that holds one has no distance and is no one's neighbour, never a
-- discord, a motif member or a match; outliers skip gap values; positions
-- still count every row.  gaps => 'error' keeps the errors of a series without them.
\set VERBOSITY terse

-- the profile: windows 2, 3 and 4 hold the NULL (array form)
SELECT pos, round(distance::numeric, 6) AS distance, neighbor
FROM ts_matrix_profile(ARRAY[1, 2, 3, NULL, 2, 3, 1, 2, 3, 1, 2, 3]::float8[], 3, 1) ORDER BY pos;
-- the query form, NULL and NaN and Infinity rows
SELECT pos, round(distance::numeric, 6) AS distance, neighbor
FROM ts_matrix_profile('SELECT v FROM (VALUES (1, 1.0), (2, 2), (3, 3), (4, NULL), (5, 2), (6, 3), (7, 1), (8, ''NaN''),
                                            (9, 3), (10, 1), (11, 2), (12, ''Infinity'')) t(i, v) ORDER BY i', 3, 1)
ORDER BY pos;
SELECT distance, neighbor FROM ts_matrix_profile_arrays(ARRAY[1, 2, NULL, 4, 5, 6, 7, 8]::float8[], 3);
-- timed forms: the times of every row, gaps included
SELECT pos, round(distance::numeric, 6) AS distance, neighbor, start_time, neighbor_time
FROM ts_matrix_profile(ARRAY[10, 20, 30, 40, 50, 60, 70, 80], ARRAY[1, 2, 3, 1, 'NaN', 3, 1, 2]::float8[], 3, 1);
SELECT pos, neighbor, start_time, neighbor_time
FROM ts_matrix_profile(NULL::int, 'SELECT i, v FROM (VALUES (10, 1.0), (20, 2), (30, 3), (40, 1), (50, NULL), (60, 3), (70, 1), (80, 2)) t(i, v) ORDER BY i', 3, 1);
SELECT distance, neighbor, start_time, neighbor_time
FROM ts_matrix_profile_arrays(ARRAY[10, 20, 30, 40, 50, 60], ARRAY[1, 2, 3, NULL, 2, 3]::float8[], 3, 1);

-- all gaps, and a gap every few rows: no rows, no error
SELECT count(*) FROM ts_discords(array_fill(NULL::float8, ARRAY[100]), 10, 3);
SELECT count(*) FROM ts_motifs(array_fill('NaN'::float8, ARRAY[100]), 10, 3);
SELECT count(*) FROM ts_match(array_fill(NULL::float8, ARRAY[100]), ARRAY[1, 2, 3]::float8[]);
SELECT count(*) FROM ts_outliers(array_fill(NULL::float8, ARRAY[100]), 2);
SELECT count(*) FILTER (WHERE distance IS NULL) AS no_distance, count(*) AS windows
FROM ts_matrix_profile((SELECT array_agg(CASE WHEN i % 4 = 0 THEN NULL ELSE sin(i) END ORDER BY i)
                        FROM generate_series(1, 200) i), 8);
SELECT count(*) FROM ts_discords((SELECT array_agg(CASE WHEN i % 4 = 0 THEN NULL ELSE sin(i) END ORDER BY i)
                                  FROM generate_series(1, 200) i), 8, 3);

-- NAB art_daily_jumpsup with NULL rows: one every 700 rows, and six hours on 2 April
CREATE TEMP TABLE jumpsup_gaps AS
SELECT ts, CASE WHEN (row_number() OVER (ORDER BY ts)) % 700 = 350 OR ts BETWEEN '2014-04-02' AND '2014-04-02 06:00'
                THEN NULL ELSE v END AS v
FROM jumpsup;
SELECT count(*) FILTER (WHERE v IS NULL) AS null_rows, count(*) AS rows FROM jumpsup_gaps;
-- discords by both methods: the same rows, none holding a gap, the jump (2014-04-10 .. 04-12) first
SELECT rank, start_time, round(distance::numeric, 6) AS distance, neighbor_time
FROM ts_discords(NULL::timestamp, 'SELECT ts, v FROM jumpsup_gaps ORDER BY ts', 288, 2);
SELECT rank, start_time, round(distance::numeric, 6) AS distance, neighbor_time
FROM ts_discords(NULL::timestamp, 'SELECT ts, v FROM jumpsup_gaps ORDER BY ts', 288, 2, method => 'pd3');
-- with the gap rows removed instead: a shorter series whose windows span the holes
SELECT rank, start_time, round(distance::numeric, 6) AS distance
FROM ts_discords(NULL::timestamp, 'SELECT ts, v FROM jumpsup_gaps WHERE v IS NOT NULL ORDER BY ts', 288, 2);
-- motifs by both methods, match of the first day
SELECT rank, time_a, time_b, round(distance::numeric, 6) AS distance
FROM ts_motifs(NULL::timestamp, 'SELECT ts, v FROM jumpsup_gaps ORDER BY ts', 288, 2);
SELECT rank, time_a, time_b, round(distance::numeric, 6) AS distance
FROM ts_motifs(NULL::timestamp, 'SELECT ts, v FROM jumpsup_gaps ORDER BY ts', 288, 2, method => 'mk');
SELECT rank, start_time, round(distance::numeric, 6) AS distance
FROM ts_match(NULL::timestamp, 'SELECT ts, v FROM jumpsup_gaps ORDER BY ts',
              (SELECT array_agg(v ORDER BY ts) FROM (SELECT ts, v FROM jumpsup ORDER BY ts LIMIT 288) f), k => 3);
-- outliers skip the NULL rows; positions count them
SELECT pos, "time", value, round(zscore::numeric, 6) AS zscore
FROM ts_outliers(NULL::timestamp, 'SELECT ts, v FROM jumpsup_gaps ORDER BY ts', 2.5) ORDER BY pos LIMIT 3;
SELECT o.pos, o.value
FROM (SELECT array_agg(v ORDER BY ts) AS s FROM jumpsup_gaps) g, ts_outliers(g.s, 2.5) o ORDER BY o.pos LIMIT 3;

-- tiles: the same profile as the single call
WITH s AS (SELECT array_agg(CASE WHEN i % 37 = 0 THEN NULL ELSE sin(i / 3.0) END ORDER BY i) AS a
           FROM generate_series(1, 400) i)
SELECT (SELECT array_agg(x ORDER BY x.pos) FROM s, ts_matrix_profile(s.a, 12) x)::text =
       (SELECT array_agg(y ORDER BY y.pos)
        FROM s, ts_matrix_profile_from_tiles(s.a, (SELECT ts_matrix_profile_merge(ts_matrix_profile_tile(s.a, 12, k, 3))
                                                   FROM generate_series(1, 3) k)) y)::text AS same,
       (SELECT count(*) FROM s, ts_matrix_profile(s.a, 12) x WHERE x.distance IS NULL) AS windows_with_gaps;
SELECT rank, pos FROM ts_discords_from_tiles(ARRAY[1, 2, 3, NULL, 2, 3, 1, 2, 3, 1, 2, 3, 9, 1, 2, 3]::float8[],
  ts_matrix_profile_tile(ARRAY[1, 2, 3, NULL, 2, 3, 1, 2, 3, 1, 2, 3, 9, 1, 2, 3]::float8[], 3, 1, 1, 3), 2);
SELECT count(*) FROM ts_motifs_from_tiles(array_fill(NULL::float8, ARRAY[20]),
  ts_matrix_profile_tile(array_fill(NULL::float8, ARRAY[20]), 3, 1, 1, 3), 2);

-- ts_plot draws gaps as breaks in the line
SELECT regexp_replace(ts_plot(ARRAY[1, 2, NULL, 4, 5]::float8[]), '.*class="series"[^>]* d="([^"]*)".*', '\1') AS path;

-- gaps => 'error': today's errors
SELECT * FROM ts_matrix_profile(ARRAY[1, 2, NULL, 4, 5, 6, 7, 8]::float8[], 3, gaps => 'error');
SELECT * FROM ts_matrix_profile('SELECT v FROM (VALUES (1.0), (''NaN''), (3), (4), (5), (6)) t(v)', 3, gaps => 'error');
SELECT * FROM ts_matrix_profile_arrays(ARRAY[1, 2, 'Infinity', 4, 5, 6, 7, 8]::float8[], 3, gaps => 'error');
SELECT * FROM ts_discords(ARRAY[10, 20, 30, 40, 50, 60, 70, 80], ARRAY[1, 2, NULL, 4, 5, 6, 7, 8]::float8[], 3, gaps => 'error');
SELECT * FROM ts_motifs(NULL::int, 'SELECT i, v FROM (VALUES (1, 1.0), (2, NULL), (3, 3), (4, 4), (5, 5), (6, 6), (7, 7)) t(i, v) ORDER BY i', 3, gaps => 'error');
SELECT * FROM ts_match(ARRAY[1, 2, '-Infinity', 4, 5, 6]::float8[], ARRAY[1, 2, 3]::float8[], gaps => 'error');
SELECT * FROM ts_outliers(ARRAY[1, NULL, 3]::float8[], gaps => 'error');
SELECT * FROM ts_matrix_profile_tile(ARRAY[1, 2, NULL, 4, 5, 6, 7, 8]::float8[], 3, 1, 1, gaps => 'error');
-- a pattern with a gap matches nothing: an error whatever gaps says
SELECT * FROM ts_match(ARRAY[1, 2, 3, 4, 5, 6]::float8[], ARRAY[1, NULL, 3]::float8[]);
SELECT * FROM ts_match(ARRAY[1, 2, 3, 4, 5, 6]::float8[], ARRAY[1, 'NaN', 3]::float8[]);
-- another value, or NULL
SELECT * FROM ts_matrix_profile(ARRAY[1, 2, 3, 4, 5, 6, 7, 8]::float8[], 3, gaps => 'fill');
SELECT * FROM ts_outliers(ARRAY[1, 2, 3]::float8[], gaps => NULL);
