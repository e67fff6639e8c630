-- Two series (AB-join): ts_matrix_profile_ab, ts_discords_ab, ts_motifs_ab
-- every window of a against b, 1-based positions in a (pos) and in b (neighbor)
SELECT pos, round(distance::numeric, 6) AS distance, neighbor
FROM ts_matrix_profile_ab('{1,2,3,4,3,2,1,2,3}'::float8[], '{3,2,1,2,3,4}'::float8[], 3);
-- the query form and array literals in its place give the same rows
SELECT count(*) AS differ FROM ts_matrix_profile_ab('{1,2,3,4,3,2,1,2,3}', '{3,2,1,2,3,4}', 3) x
  FULL JOIN ts_matrix_profile_ab(ARRAY[1,2,3,4,3,2,1,2,3]::float8[], ARRAY[3,2,1,2,3,4]::float8[], 3) y USING (pos)
  WHERE x.distance IS DISTINCT FROM y.distance OR x.neighbor IS DISTINCT FROM y.neighbor;
-- a and b parts of one series: exclusion_zone keeps |pos - neighbor| >= 4; a window without one has NULLs
SELECT pos, round(distance::numeric, 6) AS distance, neighbor
FROM ts_matrix_profile_ab('{1,2,3,4,3,2,1,2,3}'::float8[], '{3,2,1,2,3,4}'::float8[], 3, 4);
-- a = b with an exclusion zone: the self-join's rows, bit for bit (TEK16, m = 128)
SELECT e, (SELECT count(*) FROM ts_matrix_profile_ab(t.a, t.a, 128, e) x
             FULL JOIN ts_matrix_profile(t.a, 128, e) y USING (pos)
             WHERE x.neighbor IS DISTINCT FROM y.neighbor OR x.distance IS DISTINCT FROM y.distance) AS differ
FROM (SELECT array_agg(v ORDER BY pos) AS a FROM tek16) t, (VALUES (1), (33), (128)) v(e) ORDER BY e;
-- a = b without one: every window is its own nearest window
SELECT count(*) AS windows, max(distance) AS max_distance, count(*) FILTER (WHERE neighbor <> pos) AS elsewhere
FROM ts_matrix_profile_ab('SELECT v FROM tek16 ORDER BY pos', 'SELECT v FROM tek16 ORDER BY pos', 128);
-- unequal lengths both ways: a row per window of a, neighbours in b
SELECT count(*) AS windows, min(neighbor) >= 1 AND max(neighbor) <= 1000 - 64 + 1 AS in_b
FROM ts_matrix_profile_ab('SELECT v FROM tek16 ORDER BY pos', 'SELECT v FROM tek16 WHERE pos <= 1000 ORDER BY pos', 64);
SELECT count(*) AS windows, min(neighbor) >= 1 AND max(neighbor) <= 5000 - 64 + 1 AS in_b
FROM ts_matrix_profile_ab('SELECT v FROM tek16 WHERE pos <= 1000 ORDER BY pos', 'SELECT v FROM tek16 ORDER BY pos', 64);
-- b of a single window: every window of a has it as its neighbour
SELECT count(*) AS windows, count(*) FILTER (WHERE neighbor = 1) AS to_it
FROM ts_matrix_profile_ab('SELECT v FROM tek16 WHERE pos <= 500 ORDER BY pos', 'SELECT v FROM tek16 WHERE pos BETWEEN 1001 AND 1064 ORDER BY pos', 64);

-- the ECG qtdbsel102 as halves: the discords of the first half relative to the
-- second find the known anomaly (rows 4231..4429, 0-based), as the self-join does (4207)
SELECT rank, pos, round(distance::numeric, 4) AS distance, neighbor
FROM ts_discords_ab('SELECT v FROM ecg WHERE pos <= 22500 ORDER BY pos', 'SELECT v FROM ecg WHERE pos > 22500 ORDER BY pos', 256, 3);
-- the second half relative to the first holds nothing like it
SELECT max(distance) < 10 AS nothing_like_it
FROM ts_discords_ab('SELECT v FROM ecg WHERE pos > 22500 ORDER BY pos', 'SELECT v FROM ecg WHERE pos <= 22500 ORDER BY pos', 256, 3);
-- range mode: every window of the first half at 10 or more from the second (the anomaly's overlapping windows)
SELECT count(*) AS n, min(pos) <= 4207 AND max(pos) >= 4207 AS around_4207, max(pos) - min(pos) < 512 AS one_place
FROM ts_discords_ab('SELECT v FROM ecg WHERE pos <= 22500 ORDER BY pos', 'SELECT v FROM ecg WHERE pos > 22500 ORDER BY pos', 256, NULL, 10);
-- the closest pairs between the halves: heartbeats of one like heartbeats of the other
SELECT rank, pos_a, pos_b, round(distance::numeric, 4) AS distance
FROM ts_motifs_ab('SELECT v FROM ecg WHERE pos <= 22500 ORDER BY pos', 'SELECT v FROM ecg WHERE pos > 22500 ORDER BY pos', 256, 2);
-- the space shuttle TEK16 as halves: the second half's discords relative to the first
SELECT rank, pos, round(distance::numeric, 4) AS distance, neighbor
FROM ts_discords_ab('SELECT v FROM tek16 WHERE pos > 2500 ORDER BY pos', 'SELECT v FROM tek16 WHERE pos <= 2500 ORDER BY pos', 128, 2);

-- errors
SELECT * FROM ts_matrix_profile_ab('{1,2,3,4,5,6}'::float8[], '{1,2,3}'::float8[], 4);
SELECT * FROM ts_matrix_profile_ab('{1,2}'::float8[], '{1,2,3,4,5,6}'::float8[], 4);
SELECT * FROM ts_matrix_profile_ab('{1,2,3,4,5,6}'::float8[], '{1,2,3,4,5,6}'::float8[], 2);
SELECT * FROM ts_matrix_profile_ab('{1,2,3,4,5,6}'::float8[], '{1,2,3,4,5,6}'::float8[], 3, -1);
SELECT * FROM ts_matrix_profile_ab(NULL, '{1,2,3,4,5,6}'::float8[], 3);
SELECT * FROM ts_matrix_profile_ab('{1,2,3,4,5,6}'::float8[], '{1,2,NaN,4,5,6}'::float8[], 3);
SELECT * FROM ts_discords_ab('{1,2,3,4,5,6}'::float8[], '{1,2,3,4,5,6}'::float8[], 3, 0);
SELECT * FROM ts_discords_ab('{1,2,3,4,5,6}'::float8[], '{1,2,3,4,5,6}'::float8[], 3, NULL);
SELECT * FROM ts_motifs_ab('{1,2,3,4,5,6}'::float8[], '{1,2,3,4,5,6}'::float8[], 3, NULL);
SELECT * FROM ts_motifs_ab('SELECT 1.0', 'SELECT 1.0', 3);

-- with their times: each row carries the start times of its window of a and of its neighbour in b
SELECT pos, round(distance::numeric, 6) AS distance, neighbor, start_time, neighbor_time
FROM ts_matrix_profile_ab(ARRAY(SELECT timestamp '2024-01-01 00:00' + i * interval '1 hour' FROM generate_series(0, 8) i),
                          '{1,2,3,4,3,2,1,2,3}'::float8[],
                          ARRAY(SELECT timestamp '2024-01-08 00:00' + i * interval '1 hour' FROM generate_series(0, 5) i),
                          '{3,2,1,2,3,4}'::float8[], 3)
ORDER BY pos LIMIT 3;
-- TEK16's rows as 5-minute readings: the 128 readings of the second half least like any of the first half, with times
SELECT rank, pos, start_time, neighbor_time, round(distance::numeric, 4) AS distance
FROM ts_discords_ab(NULL::timestamp,
  'SELECT timestamp ''2024-01-01'' + pos * interval ''5 minutes'', v FROM tek16 WHERE pos > 2500 ORDER BY pos',
  'SELECT timestamp ''2024-01-01'' + pos * interval ''5 minutes'', v FROM tek16 WHERE pos <= 2500 ORDER BY pos', 128, 1);
-- the same rows as the untimed form
SELECT count(*) AS differ FROM (
  SELECT rank, pos_a, pos_b, distance FROM ts_motifs_ab(NULL::bigint, 'SELECT pos, v FROM ecg WHERE pos <= 22500 ORDER BY pos',
                                                         'SELECT pos, v FROM ecg WHERE pos > 22500 ORDER BY pos', 256, 2)
  EXCEPT SELECT rank, pos_a, pos_b, distance FROM ts_motifs_ab('SELECT v FROM ecg WHERE pos <= 22500 ORDER BY pos',
                                                               'SELECT v FROM ecg WHERE pos > 22500 ORDER BY pos', 256, 2)) d;
SELECT rank, pos_a, pos_b, time_a, time_b FROM ts_motifs_ab(NULL::bigint, 'SELECT pos, v FROM ecg WHERE pos <= 22500 ORDER BY pos',
                                                             'SELECT pos, v FROM ecg WHERE pos > 22500 ORDER BY pos', 256, 2);
-- times and values of different lengths
SELECT * FROM ts_matrix_profile_ab('{1,2,3}'::bigint[], '{1,2,3,4}'::float8[], '{1,2,3,4}'::bigint[], '{1,2,3,4}'::float8[], 3);
