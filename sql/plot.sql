-- ts_plot: the SVG picture of a series with its marks.
SET extra_float_digits = 0;

-- a small picture whole: five values, a discord window of 2 at position 2, an outlier at 4
SELECT ts_plot(ARRAY[1, 3, 2, 5, 4]::float8[], '{"discords": [{"rank": 1, "pos": 2}], "outliers": [4]}', 2,
               width => 300, height => 140);

-- the marks of the TEK16 valve's discords, motifs and matches are the rows' positions
WITH d AS (SELECT * FROM ts_discords('SELECT v FROM tek16 ORDER BY pos', 128, 3)),
     pic AS (SELECT ts_plot('SELECT v FROM tek16 ORDER BY pos', jsonb_build_object('discords', (SELECT jsonb_agg(d) FROM d)), 128) AS svg)
SELECT m[1] AS kind, m[2]::bigint + 1 AS pos, m[3] AS length
FROM pic, regexp_matches(svg, 'class="markbar (\w+)"[^>]* data-pos="(\d+)" data-length="(\d+)"', 'g') m ORDER BY 2;
WITH mo AS (SELECT * FROM ts_motifs('SELECT v FROM tek16 ORDER BY pos', 128, 2))
SELECT m[1] AS kind, m[2]::bigint + 1 AS pos
FROM regexp_matches(ts_plot('SELECT v FROM tek16 ORDER BY pos', jsonb_build_object('motifs', (SELECT jsonb_agg(mo) FROM mo)), 128),
                    'class="markbar (\w+)"[^>]* data-pos="(\d+)"', 'g') m ORDER BY 2;
-- a long series stays small: the ECG's 45000 values in about 4 points per pixel column at most
SELECT length(ts_plot('SELECT v FROM ecg ORDER BY pos')) < 60000 AS small,
       xml_is_well_formed_document(ts_plot('SELECT v FROM ecg ORDER BY pos')) AS well_formed;
-- the NAB series' times on the axis, from a (time, value) query, as the session prints timestamps
SET datestyle = 'ISO';
SELECT string_agg(m[1], ' | ') AS labels
FROM regexp_matches(ts_plot('SELECT ts, v FROM jumpsup ORDER BY ts'), '>([0-9][^<]*:[^<]*)</text>', 'g') m;
RESET datestyle;

-- errors
SELECT ts_plot(ARRAY[1, 2, 3]::float8[], '{"x": []}');
SELECT ts_plot(ARRAY[1, 2, 3]::float8[], '"discords"');
SELECT ts_plot(ARRAY[1, 2, 3]::float8[], '{"discords": 2}');
SELECT ts_plot(ARRAY[1, 2, 3]::float8[], '{"discords": ["2"]}');
SELECT ts_plot(ARRAY[1, 2, 3]::float8[], '{"discords": [{"at": 2}]}');
SELECT ts_plot(ARRAY[1, 2, 3]::float8[], '{"motifs": [{"pos_a": 1}]}', 1);
SELECT ts_plot(ARRAY[1, 2, 3]::float8[], '{"discords": [2]}');
SELECT ts_plot(ARRAY[1, 2, 3]::float8[], '{"discords": [2]}', 3);
SELECT ts_plot(ARRAY[1, 2, 3]::float8[], '{"outliers": [0]}');
SELECT ts_plot(ARRAY[1, 2, 3]::float8[], width => 100);
SELECT ts_plot(ARRAY[1, 2, 3]::float8[], profile => ARRAY[1, 2, 3, 4]::float8[]);
SELECT ts_plot(ARRAY[1, 2, 3]::float8[], profile => ARRAY[[1, 2]]::float8[]);
SELECT ts_plot(ARRAY[1, 2, 3]::float8[], times => ARRAY[3, 2, 1]);
SELECT ts_plot('SELECT ts, v, 1 FROM jumpsup');
