-- ts_matrix_profile and ts_discords against the exact references of
-- ../shared/data/anomaly/reference_discords.json (0-based there, 1-based here).
SET extra_float_digits = 0;

-- TEK16, m = 128: the top-3 non-overlapping discords (reference: 4863, 2823, 3862), both methods
SELECT rank, pos, round(distance::numeric, 4) AS distance, neighbor
FROM ts_discords('SELECT v FROM tek16 ORDER BY pos', 128, 3, method => 'matrix_profile');
SELECT rank, pos, round(distance::numeric, 4) AS distance, neighbor
FROM ts_discords('SELECT v FROM tek16 ORDER BY pos', 128, 3, method => 'pd3');
-- the exclusion rule matters: TEK16, m = 256
--   non-overlapping neighbours (default |i - j| >= m): 3827, 2675, 4735
SELECT rank, pos, round(distance::numeric, 4) AS distance FROM ts_discords('SELECT v FROM tek16 ORDER BY pos', 256, 3);
--   STUMPY's rule (|i - j| > ceil(m/4), i.e. exclusion_zone = ceil(m/4) + 1 = 65): 2675, 3828, 4735
SELECT rank, pos, round(distance::numeric, 4) AS distance FROM ts_discords('SELECT v FROM tek16 ORDER BY pos', 256, 3, exclusion_zone => 65);
SELECT rank, pos, round(distance::numeric, 4) AS distance FROM ts_discords('SELECT v FROM tek16 ORDER BY pos', 256, 3, exclusion_zone => 65, method => 'pd3');
-- respiration nprs44, m = 256: 20492 (non-overlapping) and 20428 (STUMPY's rule)
SELECT pos, round(distance::numeric, 4) AS distance FROM ts_discords('SELECT v FROM nprs44 ORDER BY pos', 256);
SELECT pos, round(distance::numeric, 4) AS distance FROM ts_discords('SELECT v FROM nprs44 ORDER BY pos', 256, exclusion_zone => 65, method => 'pd3');
-- ECG qtdbsel102, m = 256: 4206, 21187, 42558
SELECT rank, pos, round(distance::numeric, 4) AS distance, neighbor FROM ts_discords('SELECT v FROM ecg ORDER BY pos', 256, 3);

-- range discords (PD3's output): every window with a nearest-neighbour distance >= 13.95, both methods agree
SELECT count(*) AS n, min(distance) >= 13.95 AS all_above FROM ts_discords('SELECT v FROM tek16 ORDER BY pos', 128, NULL, 13.95);
SELECT count(*) AS differ FROM (
  (SELECT pos, round(distance::numeric, 9) FROM ts_discords('SELECT v FROM tek16 ORDER BY pos', 128, NULL, 13.95, method => 'pd3')
   EXCEPT SELECT pos, round(distance::numeric, 9) FROM ts_discords('SELECT v FROM tek16 ORDER BY pos', 128, NULL, 13.95, method => 'matrix_profile'))
  UNION ALL
  (SELECT pos, round(distance::numeric, 9) FROM ts_discords('SELECT v FROM tek16 ORDER BY pos', 128, NULL, 13.95, method => 'matrix_profile')
   EXCEPT SELECT pos, round(distance::numeric, 9) FROM ts_discords('SELECT v FROM tek16 ORDER BY pos', 128, NULL, 13.95, method => 'pd3'))) d;
-- at most k of them
SELECT count(*) FROM ts_discords('SELECT v FROM tek16 ORDER BY pos', 128, 5, 13.95);

-- the matrix profile: its maximum is the top discord under STUMPY's rule (default exclusion ceil(m/4) + 1)
SELECT count(*) AS windows, count(neighbor) AS with_neighbor FROM ts_matrix_profile('SELECT v FROM tek16 ORDER BY pos', 128);
SELECT pos, round(distance::numeric, 4) AS distance, neighbor
FROM ts_matrix_profile('SELECT v FROM tek16 ORDER BY pos', 128) ORDER BY distance DESC, pos LIMIT 1;
-- the array form gives the same profile
SELECT count(*) AS differ FROM ts_matrix_profile('SELECT v FROM tek16 ORDER BY pos', 128) a
  JOIN ts_matrix_profile((SELECT array_agg(v ORDER BY pos) FROM tek16), 128) b USING (pos)
WHERE a.neighbor <> b.neighbor OR a.distance <> b.distance;
-- ts_matrix_profile_arrays: the same profile as one row of two arrays (element i = window i)
SELECT cardinality(distance) AS windows, cardinality(neighbor) AS neighbors
FROM ts_matrix_profile_arrays('SELECT v FROM tek16 ORDER BY pos', 128);
SELECT count(*) AS differ FROM ts_matrix_profile('SELECT v FROM tek16 ORDER BY pos', 128) r,
  ts_matrix_profile_arrays((SELECT array_agg(v ORDER BY pos) FROM tek16), 128) a
WHERE r.distance IS DISTINCT FROM a.distance[r.pos] OR r.neighbor IS DISTINCT FROM a.neighbor[r.pos];
-- windows without a neighbour (exclusion zone 7 of 8 windows) are NULL in both arrays, as in the row form
SELECT * FROM ts_matrix_profile_arrays(ARRAY[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]::float8[], 3, 7);
SELECT pos, distance, neighbor FROM ts_matrix_profile(ARRAY[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]::float8[], 3, 7) ORDER BY pos;
-- per series of a table, kept as a column
SELECT w.w, cardinality(p.distance) AS windows, array_position(p.distance, (SELECT max(d) FROM unnest(p.distance) d)) BETWEEN 270 AND 330 AS top_near_planted
FROM (SELECT w, array_agg(sin(i * 0.1 * w) + CASE WHEN i BETWEEN 300 AND 320 THEN 2 ELSE 0 END ORDER BY i) AS series
      FROM generate_series(1, 2) w, generate_series(1, 1000) i GROUP BY w) w,
     LATERAL ts_matrix_profile_arrays(w.series, 32) p ORDER BY w.w;
-- symmetric: the profile at the neighbour of the motif points back
SELECT p.pos, p.neighbor, q.neighbor = p.pos AS mutual
FROM ts_matrix_profile('SELECT v FROM tek16 ORDER BY pos', 128) p
JOIN ts_matrix_profile('SELECT v FROM tek16 ORDER BY pos', 128) q ON q.pos = p.neighbor
ORDER BY round(p.distance::numeric, 9), p.pos LIMIT 1;

-- constant windows (STUMPY's rule): a flat series has a zero profile;
-- a constant window against non-constant ones is at sqrt(m)
SELECT count(*), max(distance) FROM ts_matrix_profile(array_fill(45.0::float8, ARRAY[500]), 20);
SELECT pos, round(distance::numeric, 6) AS distance, round(sqrt(20)::numeric, 6) AS sqrt_m
FROM ts_matrix_profile((SELECT array_agg(CASE WHEN i BETWEEN 100 AND 119 THEN 0 ELSE sin(i * 0.3) + i * 0.001 END ORDER BY i)
                        FROM generate_series(1, 400) i), 20) WHERE pos = 100;

-- LATERAL over a table of series, and a join back to timestamps
CREATE TEMP TABLE walks AS
  SELECT w, array_agg(sin(i * 0.1 * w) + CASE WHEN i BETWEEN 300 AND 320 THEN 2 ELSE 0 END ORDER BY i) AS series
  FROM generate_series(1, 3) w, generate_series(1, 1000) i GROUP BY w;
SELECT w.w, d.pos, d.pos BETWEEN 270 AND 330 AS near_planted FROM walks w, LATERAL ts_discords(w.series, 32) d ORDER BY w.w;
-- several profiles in one statement, each its own (they use the staged result memory in turn):
-- p for walk w, then q for w, then r for the next walk
SELECT w.w, p.distance = q.distance AND p.neighbor = q.neighbor AS arrays_equal_rows, p.distance <> r.distance AS next_differs
FROM walks w, LATERAL ts_matrix_profile_arrays(w.series, 32) p,
     LATERAL (SELECT array_agg(distance ORDER BY pos) AS distance, array_agg(neighbor ORDER BY pos) AS neighbor
              FROM ts_matrix_profile(w.series, 32)) q,
     LATERAL (SELECT array_agg(distance ORDER BY pos) AS distance
              FROM ts_matrix_profile((SELECT v.series FROM walks v WHERE v.w = w.w % 3 + 1), 32)) r ORDER BY w.w;
WITH t AS (SELECT row_number() OVER (ORDER BY ts) AS pos, ts FROM jumpsup)
SELECT d.rank, t.ts, round(d.distance::numeric, 4) AS distance
FROM ts_discords('SELECT v FROM jumpsup ORDER BY ts', 288, 2) d JOIN t USING (pos) ORDER BY d.rank;

-- errors
SELECT * FROM ts_discords(ARRAY[1, 2, 3, 4, 5, 6, 7, 8]::float8[], 2);
SELECT * FROM ts_discords(ARRAY[1, 2, 3, 4, 5, 6, 7, 8]::float8[], 5);
SELECT * FROM ts_discords(ARRAY[1, 2, 3, 4, 5, 6, 7, 8]::float8[], 3, 0);
SELECT * FROM ts_discords(ARRAY[1, 2, 3, 4, 5, 6, 7, 8]::float8[], 3, NULL);
SELECT * FROM ts_discords(ARRAY[1, 2, 3, 4, 5, 6, 7, 8]::float8[], 3, 1, -1);
SELECT * FROM ts_discords(ARRAY[1, 2, 3, 4, 5, 6, 7, 8]::float8[], 3, 1, 'Infinity');
SELECT * FROM ts_discords(ARRAY[1, 2, 3, 4, 5, 6, 7, 8]::float8[], 3, 1, NULL, 0);
SELECT * FROM ts_discords(ARRAY[1, 2, 3, 4, 5, 6, 7, 8]::float8[], 3, 1, NULL, 7);
SELECT * FROM ts_discords(ARRAY[1, 2, 3, 4, 5, 6, 7, 8]::float8[], 3, method => 'drag');
SELECT * FROM ts_discords(ARRAY[1, 2, 3, 4, 5, 6, 7, 8]::float8[], NULL);
SELECT * FROM ts_discords(ARRAY[1, 2, 'NaN', 4, 5, 6, 7, 8]::float8[], 3, gaps => 'error');
SELECT count(*) FROM ts_discords('{}'::float8[], 3);
SELECT count(*) FROM ts_matrix_profile('{}'::float8[], 3);
SELECT count(*) FROM ts_motifs('{}'::float8[], 3);
SELECT count(*) FROM ts_match('{}'::float8[], ARRAY[1, 2, 3]::float8[]);
SELECT * FROM ts_matrix_profile(ARRAY[1, 2, 3, 4, 5, 6, 7, 8]::float8[], 5);
SELECT * FROM ts_matrix_profile(ARRAY[1, 2, 3, 4, 5, 6, 7, 8]::float8[], 3, 0);
SELECT * FROM ts_matrix_profile_arrays(ARRAY[1, 2, 3, 4, 5, 6, 7, 8]::float8[], 5);
SELECT * FROM ts_matrix_profile_arrays(ARRAY[1, 2, NULL, 4, 5, 6, 7, 8]::float8[], 3, gaps => 'error');
SELECT * FROM ts_matrix_profile_arrays(ARRAY[1, 2, 3, 4, 5, 6, 7, 8]::float8[], 3, 6);
SELECT * FROM ts_matrix_profile_arrays('{}'::float8[], 3);
SELECT * FROM ts_matrix_profile_arrays('SELECT 1', NULL);
SELECT * FROM ts_matrix_profile(ARRAY[1, 2, 3, 4, 5, 6, 7, 8]::float8[], 3, 6);
