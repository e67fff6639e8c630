-- Array literals where a series goes.  An untyped string literal resolves to
-- the query form (text): PostgreSQL prefers text, the preferred type of the
-- string category, for an unknown literal when overloads take text and
-- float8[].  The query form takes text whose first non-blank character is '{'
-- (no SQL statement starts with one) as the float8[] it spells, so both
-- spellings give the same rows, for every function with a query form (a timed
-- query form, which needs times, raises an error instead).
SET extra_float_digits = 0;

-- what PostgreSQL resolves an untyped literal to, shown on two overloads of our own
CREATE FUNCTION pg_temp.resolves_to(x float8[]) RETURNS text LANGUAGE sql AS $$ SELECT 'float8[]' $$;
CREATE FUNCTION pg_temp.resolves_to(x text) RETURNS text LANGUAGE sql AS $$ SELECT 'text' $$;
SELECT pg_temp.resolves_to('{1,2,3}') AS untyped, pg_temp.resolves_to('{1,2,3}'::float8[]) AS cast;

-- ts_outliers: the issue's example, and the array form
SELECT pos, value, round(zscore::numeric, 6) AS zscore FROM ts_outliers('{1,2,1,2,1,2,1,2,100}', 2);
SELECT pos, value, round(zscore::numeric, 6) AS zscore FROM ts_outliers(ARRAY[1, 2, 1, 2, 1, 2, 1, 2, 100]::float8[], 2);
SELECT pos, value, round(zscore::numeric, 6) AS zscore FROM ts_outliers('{1,2,1,2,1,2,1,2,100}', 2, 'mad');

-- a series with a few spikes, as a literal and as an array
CREATE TEMP TABLE lit AS
SELECT '{' || string_agg(v::text, ',' ORDER BY i) || '}' AS text_form, array_agg(v ORDER BY i) AS array_form
FROM (SELECT i, round((sin(i * 0.4) + CASE WHEN i IN (40, 95) THEN 3 ELSE 0 END)::numeric, 3)::float8 AS v
      FROM generate_series(1, 120) i) s;

-- ts_matrix_profile and ts_matrix_profile_arrays
SELECT pos, round(distance::numeric, 6) AS distance, neighbor
FROM ts_matrix_profile((SELECT text_form FROM lit), 8) ORDER BY distance DESC, pos LIMIT 3;
SELECT count(*) AS rows,
       count(*) FILTER (WHERE (l.pos, l.distance, l.neighbor) IS DISTINCT FROM (a.pos, a.distance, a.neighbor)) AS differ
FROM ts_matrix_profile((SELECT text_form FROM lit), 8) l
     FULL JOIN ts_matrix_profile((SELECT array_form FROM lit), 8) a USING (pos);
SELECT (SELECT (distance, neighbor) FROM ts_matrix_profile_arrays((SELECT text_form FROM lit), 8))
     = (SELECT (distance, neighbor) FROM ts_matrix_profile_arrays((SELECT array_form FROM lit), 8)) AS same_arrays;

-- ts_discords, both methods
SELECT rank, pos, round(distance::numeric, 6) AS distance, neighbor
FROM ts_discords((SELECT text_form FROM lit), 8, 2);
SELECT (SELECT array_agg((rank, pos, distance, neighbor)) FROM ts_discords((SELECT text_form FROM lit), 8, 2, method => 'pd3'))
     = (SELECT array_agg((rank, pos, distance, neighbor)) FROM ts_discords((SELECT array_form FROM lit), 8, 2, method => 'pd3'))
  AS same_pd3;

-- ts_motifs, both methods
SELECT rank, pos_a, pos_b, round(distance::numeric, 6) AS distance
FROM ts_motifs((SELECT text_form FROM lit), 8, 2, method => 'mk');
SELECT (SELECT array_agg((rank, pos_a, pos_b, distance)) FROM ts_motifs((SELECT text_form FROM lit), 8, 2, method => 'matrix_profile'))
     = (SELECT array_agg((rank, pos_a, pos_b, distance)) FROM ts_motifs((SELECT array_form FROM lit), 8, 2, method => 'matrix_profile'))
  AS same_motifs;

-- ts_match: the series and the pattern as literals
SELECT rank, pos, round(distance::numeric, 6) AS distance
FROM ts_match('{0,1,2,3,2,1,0,1,2,3,2,1,0,5,0,1,2,3,2,1}', '{1,2,3,2}', k => 3);
SELECT rank, pos, round(distance::numeric, 6) AS distance
FROM ts_match(ARRAY[0, 1, 2, 3, 2, 1, 0, 1, 2, 3, 2, 1, 0, 5, 0, 1, 2, 3, 2, 1]::float8[], '{1,2,3,2}', k => 3);

-- ts_shapelet_classify: a literal is one series to classify (one row, no id)
CREATE TEMP TABLE tiny_model AS
SELECT ts_shapelet_tree($$SELECT * FROM (VALUES ('flat', '{0,0,1,0,0,1,0,0,1,0,0,1}'::float8[]),
                                              ('flat', '{1,0,0,1,0,0,1,0,0,1,0,0}'::float8[]),
                                              ('peak', '{0,0,0,0,5,9,5,0,0,0,0,0}'::float8[]),
                                              ('peak', '{0,0,0,0,0,0,5,9,5,0,0,0}'::float8[])) t(label, series)$$, 3, 3) AS model;
SELECT c.* FROM tiny_model, ts_shapelet_classify(model, '{0,0,0,5,9,5,0,0,0,0,0,0}') c;
SELECT ts_shapelet_classify(model, '{0,0,0,5,9,5,0,0,0,0,0,0}'::float8[]) FROM tiny_model;

-- ts_plot: the picture of the literal is that of the array
SELECT ts_plot('{1,2,1,2,1,2,1,2,100}') = ts_plot('{1,2,1,2,1,2,1,2,100}'::float8[]) AS same_picture;

-- the timed forms: with a times array, an untyped literal is the series
-- (the timed array form is the only one that takes an array first) ...
SELECT pos, value, to_char("time", 'YYYY-MM-DD') AS "time" FROM ts_outliers('{2026-01-01,2026-01-02,2026-01-03,2026-01-04,2026-01-05,2026-01-06,2026-01-07,2026-01-08,2026-01-09}'::date[],
                                                                           '{1,2,1,2,1,2,1,2,100}', 2);
-- ... while the timed query form needs the times of its query: a literal there is an error
SELECT * FROM ts_outliers(NULL::date, '{1,2,1,2,1,2,1,2,100}', 2);

-- blanks before the brace, empty literals
SELECT count(*) FROM ts_outliers(E' \n\t{1,2,1,2,1,2,1,2,100}', 2);
SELECT count(*) FROM ts_outliers('{}');
SELECT count(*) FROM ts_discords('{}', 3);

-- a query still runs as a query (also after blanks and in parentheses)
SELECT count(*) FROM ts_outliers('SELECT v FROM tek16 ORDER BY pos', 3);
SELECT count(*) FROM ts_outliers(E'\n  (SELECT v FROM tek16 ORDER BY pos)', 3);

-- a malformed literal is an error of the literal (22P02), not a syntax error
SELECT * FROM ts_outliers('{1,2,1,2', 2);
SELECT * FROM ts_discords('{1,2,x}', 3);
DO $$
BEGIN
  PERFORM * FROM ts_motifs('{1,2,,3}', 3);
EXCEPTION WHEN invalid_text_representation THEN
  RAISE NOTICE 'SQLSTATE %', SQLSTATE;
END $$;
-- and the array form's errors, named as the series'
SELECT * FROM ts_outliers('{1,NULL,2}', 2, gaps => 'error');
SELECT * FROM ts_outliers('{1,NaN,2}', 2, gaps => 'error');
SELECT * FROM ts_outliers('{{1,2},{3,4}}', 2);
