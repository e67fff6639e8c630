-- The timed forms: series with their times, results with the times of what
-- they report.  NAB art_daily_jumpsup has 5-minute timestamps (jumpsup.ts).
SET extra_float_digits = 0;
SET timezone = 'UTC';

-- the outliers of a readings table, with their times, in one query (query form)
SELECT pos, time, round(value::numeric, 2) AS value, round(zscore::numeric, 2) AS zscore
FROM ts_outliers(NULL::timestamp, 'SELECT ts, v FROM jumpsup ORDER BY ts', 3) ORDER BY pos LIMIT 5;
-- the same with the times and values as arrays (array form), as timestamptz
SELECT o.pos, o.time, round(o.value::numeric, 2) AS value
FROM (SELECT array_agg(ts AT TIME ZONE 'UTC' ORDER BY ts) AS t, array_agg(v ORDER BY ts) AS v FROM jumpsup) s,
     ts_outliers(s.t, s.v, 3) o ORDER BY o.pos LIMIT 5;

-- the top discords of a day (288 readings): where and when, and when their nearest neighbours were
SELECT rank, pos, start_time, round(distance::numeric, 4) AS distance, neighbor, neighbor_time
FROM ts_discords(NULL::timestamp, 'SELECT ts, v FROM jumpsup ORDER BY ts', 288, 2);
-- the plain form gives the same positions and distances
SELECT rank, pos, round(distance::numeric, 4) AS distance, neighbor
FROM ts_discords('SELECT v FROM jumpsup ORDER BY ts', 288, 2);

-- motifs, matches and the matrix profile with times (bigint epochs, dates, integers)
SELECT rank, pos_a, pos_b, time_a, time_b, round(distance::numeric, 4) AS distance
FROM ts_motifs(NULL::bigint, 'SELECT extract(epoch FROM ts)::bigint, v FROM jumpsup ORDER BY ts', 288);
SELECT rank, pos, start_time, round(distance::numeric, 4) AS distance
FROM ts_match(NULL::timestamp, 'SELECT ts, v FROM jumpsup ORDER BY ts',
              (SELECT array_agg(v ORDER BY ts) FROM jumpsup WHERE ts >= '2014-04-03' AND ts < '2014-04-04'), k => 3);
SELECT pos, start_time, round(distance::numeric, 4) AS distance, neighbor, neighbor_time
FROM ts_matrix_profile(ARRAY['2024-01-01', '2024-01-02', '2024-01-04', '2024-01-08', '2024-01-09', '2024-01-10',
                             '2024-01-12', '2024-01-13']::date[],
                       ARRAY[1, 2, 3, 1, 2, 3, 1, 2]::float8[], 3, 1);
SELECT distance, neighbor, start_time, neighbor_time
FROM ts_matrix_profile_arrays(ARRAY[10, 20, 30, 40, 50, 60], ARRAY[1, 2, 3, 1, 2, 4]::float8[], 3);
SELECT * FROM ts_matrix_profile_arrays(ARRAY[]::int[], ARRAY[]::float8[], 3);
SELECT * FROM ts_discords(NULL::timestamp, 'SELECT ts, v FROM jumpsup WHERE false', 288);

-- errors
SELECT * FROM ts_outliers(ARRAY[1, 2, 3], ARRAY[1, 2, 3, 4]::float8[]);
SELECT * FROM ts_outliers(ARRAY[1, NULL, 3], ARRAY[1, 2, 3]::float8[]);
SELECT * FROM ts_outliers(ARRAY['2024-01-02', '2024-01-01']::date[], ARRAY[1, 2]::float8[]);
SELECT * FROM ts_outliers(ARRAY[[1, 2], [3, 4]], ARRAY[1, 2, 3, 4]::float8[]);
SELECT * FROM ts_outliers(ARRAY[1.5, 2.5], ARRAY[1, 2]::float8[]);
SELECT * FROM ts_outliers(NULL::timestamp, 'SELECT ts, v FROM jumpsup ORDER BY ts DESC');
SELECT * FROM ts_outliers(NULL::timestamp, 'SELECT ts, v FROM jumpsup UNION ALL SELECT NULL, 1');
SELECT * FROM ts_outliers(NULL::timestamp, 'SELECT v FROM jumpsup ORDER BY ts');
SELECT * FROM ts_outliers(NULL::timestamptz, 'SELECT ts, v FROM jumpsup ORDER BY ts');
SELECT * FROM ts_outliers(NULL::text, 'SELECT ts::text, v FROM jumpsup ORDER BY ts', 3);
SELECT * FROM ts_outliers('SELECT ts, v FROM jumpsup ORDER BY ts');
SELECT * FROM ts_discords('{1,2,3,4}', '{1,2,3,4}', 3);
