-- ts_motifs and ts_match against brute-force references
-- (../shared/data/anomaly/reference_discords.json: 0-based there, 1-based here).
SET extra_float_digits = 0;

-- TEK16, m = 128: the closest non-overlapping pair is (3385, 4347) at 0.348539, both methods
SELECT rank, pos_a, pos_b, round(distance::numeric, 6) AS distance
FROM ts_motifs('SELECT v FROM tek16 ORDER BY pos', 128, 3, method => 'mk');
SELECT rank, pos_a, pos_b, round(distance::numeric, 6) AS distance
FROM ts_motifs('SELECT v FROM tek16 ORDER BY pos', 128, 3, method => 'matrix_profile');
-- NAB art_daily_jumpsup, m = 288: (475, 763) at 2.142824
SELECT rank, pos_a, pos_b, round(distance::numeric, 6) AS distance FROM ts_motifs('SELECT v FROM jumpsup ORDER BY ts', 288);
-- later pairs share no member with, and do not overlap, earlier ones
WITH p AS (SELECT * FROM ts_motifs('SELECT v FROM tek16 ORDER BY pos', 64, 8, method => 'mk'))
SELECT count(*) AS violations FROM p a JOIN p b ON a.rank < b.rank
WHERE abs(a.pos_a - b.pos_a) < 64 OR abs(a.pos_a - b.pos_b) < 64 OR abs(a.pos_b - b.pos_a) < 64 OR abs(a.pos_b - b.pos_b) < 64;
SELECT bool_and(pos_b - pos_a >= 64) AS excluded, bool_and(distance >= lag_d) AS ordered
FROM (SELECT *, lag(distance, 1, 0.0) OVER (ORDER BY rank) AS lag_d FROM ts_motifs('SELECT v FROM tek16 ORDER BY pos', 64, 8)) p;

-- exact repeats come out at exactly 0, smaller positions first
SELECT rank, pos_a, pos_b, distance
FROM ts_motifs((SELECT array_agg(sin(i * 0.37) * (1 + (i % 7)) ORDER BY i) FROM generate_series(1, 300) i)
               || (SELECT array_agg(sin(i * 0.37) * (1 + (i % 7)) ORDER BY i) FROM generate_series(1, 300) i), 50, 2);
-- near-identical windows (and a 1e8 offset): ~0, not 1e-3
SELECT rank, (pos_b - pos_a) % 50 = 0 AS whole_periods, distance < 1e-6 AS near_zero
FROM ts_motifs((SELECT array_agg(1e8 + sin(2 * pi() * i / 50.0) ORDER BY i)
                FROM generate_series(1, 800) i), 100, 1);

-- ts_match: every occurrence of a pattern, best first; the pattern's own window is at 0
SELECT rank, pos, round(distance::numeric, 6) AS distance
FROM ts_match('SELECT v FROM tek16 ORDER BY pos', (SELECT array_agg(v ORDER BY pos) FROM tek16 WHERE pos BETWEEN 3386 AND 3513), k => 3);
SELECT count(*) AS within_3, max(distance) <= 3 AS bounded
FROM ts_match((SELECT array_agg(v ORDER BY pos) FROM tek16), (SELECT array_agg(v ORDER BY pos) FROM tek16 WHERE pos BETWEEN 3386 AND 3513), 3.0);
-- returned windows are at least exclusion_zone apart
WITH r AS (SELECT * FROM ts_match('SELECT v FROM tek16 ORDER BY pos', (SELECT array_agg(v ORDER BY pos) FROM tek16 WHERE pos BETWEEN 1 AND 100), k => 20, exclusion_zone => 150))
SELECT count(*) AS too_close FROM r a JOIN r b ON a.rank < b.rank AND abs(a.pos - b.pos) < 150;

-- errors
SELECT * FROM ts_motifs(ARRAY[1, 2, 3, 4, 5, 6, 7, 8]::float8[], 2);
SELECT * FROM ts_motifs(ARRAY[1, 2, 3, 4, 5, 6, 7, 8]::float8[], 5);
SELECT * FROM ts_motifs(ARRAY[1, 2, 3, 4, 5, 6, 7, 8]::float8[], 3, 0);
SELECT * FROM ts_motifs(ARRAY[1, 2, 3, 4, 5, 6, 7, 8]::float8[], 3, NULL);
SELECT * FROM ts_motifs(ARRAY[1, 2, 3, 4, 5, 6, 7, 8]::float8[], 3, 1, 0);
SELECT * FROM ts_motifs(ARRAY[1, 2, 3, 4, 5, 6, 7, 8]::float8[], 3, 1, NULL, 'brute');
SELECT * FROM ts_motifs(ARRAY[1, 2, 3, 4, 5, 6, 7, 8]::float8[], 3, 1, NULL, 'mk', 0);
SELECT * FROM ts_motifs(ARRAY[1, NULL, 3, 4, 5, 6, 7, 8]::float8[], 3, gaps => 'error');
SELECT * FROM ts_match(ARRAY[1, 2, 3, 4]::float8[], ARRAY[1, 2, 3, 4, 5]::float8[]);
SELECT * FROM ts_match(ARRAY[1, 2, 3, 4]::float8[], ARRAY[1, 2]::float8[]);
SELECT * FROM ts_match(ARRAY[1, 2, 3, 4]::float8[], ARRAY[1, 2, 3]::float8[], -1);
SELECT * FROM ts_match(ARRAY[1, 2, 3, 4]::float8[], ARRAY[1, 2, 3]::float8[], NULL, 0);
SELECT * FROM ts_match(ARRAY[1, 2, 3, 4]::float8[], NULL);
SELECT * FROM ts_match(ARRAY[1, 2, 3, 4]::float8[], ARRAY[1, 'NaN', 3]::float8[]);
