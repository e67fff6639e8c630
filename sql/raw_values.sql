-- normalized => false: the Euclidean distance of the raw values (STUMPY's
-- aamp), for data whose level matters.
SET extra_float_digits = 0;

-- a daily temperature cycle, the same shape every day, one day 5 degrees
-- warmer: raw, the warm day is the discord, 5 sqrt(24) from every other day;
-- z-normalised, that day is like any other, and the discord is a window
-- across one of its edges
CREATE TABLE temps AS
  SELECT i, 20 + 3 * sin(2 * pi() * (i % 24) / 24) + CASE WHEN i BETWEEN 120 AND 143 THEN 5 ELSE 0 END AS v
  FROM generate_series(0, 239) i;
SELECT rank, pos, round(distance::numeric, 6) AS distance
FROM ts_discords('SELECT v FROM temps ORDER BY i', 24, 1, normalized => false);
SELECT rank, pos, round(distance::numeric, 6) AS distance
FROM ts_discords('SELECT v FROM temps ORDER BY i', 24, 1);
SELECT round((5 * sqrt(24))::numeric, 6) AS five_sqrt_24;

-- the profile of a short series: constant windows are ordinary windows
SELECT pos, distance, neighbor
FROM ts_matrix_profile(ARRAY[1, 1, 1, 1, 3, 3, 3, 3, 1, 1, 1, 1]::float8[], 4, normalized => false);
SELECT distance, neighbor FROM ts_matrix_profile_arrays(ARRAY[1, 1, 1, 1, 3, 3, 3, 3, 1, 1, 1, 1]::float8[], 4, normalized => false);

-- motifs and match by raw distance
SELECT rank, pos_a, pos_b, round(distance::numeric, 6) AS distance
FROM ts_motifs('SELECT v FROM temps ORDER BY i', 24, 2, normalized => false);
SELECT rank, pos, round(distance::numeric, 6) AS distance
FROM ts_match('SELECT v FROM temps ORDER BY i', (SELECT array_agg(v + 5 ORDER BY i) FROM temps WHERE i < 24), k => 2,
              normalized => false);

-- errors
SELECT * FROM ts_discords('SELECT v FROM temps ORDER BY i', 24, 1, method => 'pd3', normalized => false);
SELECT * FROM ts_motifs('SELECT v FROM temps ORDER BY i', 24, 1, method => 'mk', normalized => false);
SELECT * FROM ts_matrix_profile(ARRAY[1, 2, 3, 4, 5, 6]::float8[], 3, normalized => NULL);
SELECT * FROM ts_matrix_profile(ARRAY[1.7e308, 1.7e308, -1.7e308, 1.7e308, 1.7e308, -1.7e308, 1.7e308, 1.7e308]::float8[], 4, 4,
                                normalized => false);
DROP TABLE temps;
