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

-- raw values (normalized => false, STUMPY's aamp): the Euclidean distance of the values, for data whose
-- level matters; b is about 10 higher: z-normalised most windows of a have an exact match in b, raw
-- ones are far from every window of b, nearest to its lowest one (2)
SELECT x.pos, round(x.distance::numeric, 6) AS z_distance, round(r.distance::numeric, 6) AS raw_distance, r.neighbor AS raw_neighbor
FROM ts_matrix_profile_ab('{1,2,3,4,3,2,1,2,3}'::float8[], '{13,12,11,12,13,14}'::float8[], 3) x
JOIN ts_matrix_profile_ab('{1,2,3,4,3,2,1,2,3}'::float8[], '{13,12,11,12,13,14}'::float8[], 3, normalized => false) r USING (pos)
ORDER BY pos;
-- a = b with an exclusion zone: the raw self-join's rows, bit for bit (TEK16, m = 128)
SELECT e, (SELECT count(*) FROM ts_matrix_profile_ab(t.a, t.a, 128, e, normalized => false) x
             FULL JOIN ts_matrix_profile(t.a, 128, e, normalized => false) y USING (pos)
             WHERE x.neighbor IS DISTINCT FROM y.neighbor OR x.distance IS DISTINCT FROM y.distance) AS differ
FROM (SELECT array_agg(v ORDER BY pos) AS a FROM tek16) t, (VALUES (1), (128)) v(e) ORDER BY e;
-- raw discords and motifs of the ECG halves (distances in millivolts)
SELECT rank, pos, round(distance::numeric, 4) AS distance, neighbor
FROM ts_discords_ab('SELECT v FROM ecg WHERE pos <= 22500 ORDER BY pos', 'SELECT v FROM ecg WHERE pos > 22500 ORDER BY pos', 256, 2,
                    normalized => false);
SELECT rank, pos_a, pos_b, round(distance::numeric, 4) AS distance
FROM ts_motifs_ab('SELECT v FROM ecg WHERE pos <= 22500 ORDER BY pos', 'SELECT v FROM ecg WHERE pos > 22500 ORDER BY pos', 256, 2,
                  normalized => false);

-- gaps (NULL, NaN, ±Infinity): a window of a holding one has NULLs, a window of b holding one is no neighbour
SELECT pos, round(distance::numeric, 6) AS distance, neighbor
FROM ts_matrix_profile_ab('{1,2,3,NULL,3,2,1,2,3}'::float8[], '{3,2,NaN,2,3,4,3,2,1,Infinity,1,2}'::float8[], 3);
-- and with raw values
SELECT pos, round(distance::numeric, 6) AS distance, neighbor
FROM ts_matrix_profile_ab('{1,2,3,NULL,3,2,1,2,3}'::float8[], '{3,2,NaN,2,3,4,3,2,1,Infinity,1,2}'::float8[], 3, normalized => false);
-- TEK16 halves as queries, a NULL every 100th row of a and a run of NULLs in b (b's rows 500..550)
SELECT count(*) AS windows, count(distance) AS with_distance,
       count(*) FILTER (WHERE neighbor BETWEEN 500 - 63 AND 550) AS to_the_run
FROM ts_matrix_profile_ab('SELECT CASE WHEN pos % 100 = 0 THEN NULL ELSE v END FROM tek16 WHERE pos <= 2500 ORDER BY pos',
                          'SELECT CASE WHEN pos BETWEEN 3000 AND 3050 THEN NULL ELSE v END FROM tek16 WHERE pos > 2500 ORDER BY pos', 64);
SELECT rank, pos, round(distance::numeric, 4) AS distance, neighbor
FROM ts_discords_ab('SELECT CASE WHEN pos % 100 = 0 THEN NULL ELSE v END FROM tek16 WHERE pos > 2500 ORDER BY pos',
                    'SELECT CASE WHEN pos BETWEEN 1000 AND 1050 THEN ''NaN'' ELSE v END FROM tek16 WHERE pos <= 2500 ORDER BY pos', 64, 2);
SELECT rank, pos_a, pos_b, round(distance::numeric, 4) AS distance
FROM ts_motifs_ab('SELECT CASE WHEN pos % 100 = 0 THEN NULL ELSE v END FROM tek16 WHERE pos > 2500 ORDER BY pos',
                  'SELECT CASE WHEN pos BETWEEN 1000 AND 1050 THEN ''NaN'' ELSE v END FROM tek16 WHERE pos <= 2500 ORDER BY pos', 64, 2,
                  normalized => false);
-- all gaps in a or in b: no distances, no discords, no motifs, no error
SELECT count(*) AS windows, count(distance) AS with_distance
FROM ts_matrix_profile_ab('{NULL,NULL,NULL,NULL}'::float8[], '{1,2,3,4}'::float8[], 3);
SELECT count(*) AS windows, count(distance) AS with_distance
FROM ts_matrix_profile_ab('{1,2,3,4}'::float8[], '{NaN,NaN,NaN,NaN}'::float8[], 3, normalized => false);
SELECT count(*) AS discords FROM ts_discords_ab('{1,2,3,4}'::float8[], '{NaN,NaN,NaN,NaN}'::float8[], 3, NULL, 0);
SELECT count(*) AS motifs FROM ts_motifs_ab('{NULL,NULL,NULL}'::float8[], '{1,2,3,4}'::float8[], 3, normalized => false);

-- errors
SELECT * FROM ts_matrix_profile_ab('{1,2,3,4,5,6}'::float8[], '{1,2,3}'::float8[], 4);
SELECT * FROM ts_matrix_profile_ab('{1,2}'::float8[], '{1,2,3,4,5,6}'::float8[], 4);
SELECT * FROM ts_matrix_profile_ab('{1,2,3,4,5,6}'::float8[], '{1,2,3,4,5,6}'::float8[], 2);
SELECT * FROM ts_matrix_profile_ab('{1,2,3,4,5,6}'::float8[], '{1,2,3,4,5,6}'::float8[], 3, -1);
SELECT * FROM ts_matrix_profile_ab(NULL, '{1,2,3,4,5,6}'::float8[], 3);
SELECT * FROM ts_matrix_profile_ab('{1,2,3,4,5,6}'::float8[], '{1,2,NaN,4,5,6}'::float8[], 3, gaps => 'error');
SELECT * FROM ts_discords_ab('SELECT v FROM (VALUES (1.0), (NULL), (3), (4)) t(v)', '{1,2,3,4,5,6}', 3, gaps => 'error');
SELECT * FROM ts_motifs_ab('{1,2,3,4,5,6}'::float8[], '{1,2,3,4,5,Infinity}'::float8[], 3, gaps => 'error');
SELECT * FROM ts_motifs_ab('{1,2,3,4,5,6}'::float8[], '{1,2,3,4,5,6}'::float8[], 3, gaps => 'sometimes');
-- raw values past the float64 range: 22003
SELECT * FROM ts_matrix_profile_ab('{1e308,-1e308,1e308,-1e308}'::float8[], '{-1e308,-1e308,-1e308,-1e308}'::float8[], 3, normalized => false);
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
-- raw values and gaps with times: the rows carry the times of a's window and of b's, NULL where no neighbour
SELECT pos, round(distance::numeric, 6) AS distance, neighbor, start_time, neighbor_time
FROM ts_matrix_profile_ab(NULL::int, 'SELECT t, v FROM (VALUES (10, 1.0), (20, 2), (30, NULL), (40, 4), (50, 3), (60, 2), (70, 1)) r(t, v) ORDER BY t',
                          'SELECT t, v FROM (VALUES (1, 5.0), (2, 4), (3, 3), (4, 2), (5, 1)) r(t, v) ORDER BY t', 3,
                          normalized => false);
-- times and values of different lengths
SELECT * FROM ts_matrix_profile_ab('{1,2,3}'::bigint[], '{1,2,3,4}'::float8[], '{1,2,3,4}'::bigint[], '{1,2,3,4}'::float8[], 3);
