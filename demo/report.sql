-- The demo's report: an HTML page with pictures (ts_plot) of the demo's real
-- series and their discords, motifs, matches and outliers, and the rows
-- beside them.  Included by demo.sql after load.sql (test/shell/report.sh
-- runs the two alone); writes the file named by the psql variable report
-- (default demo-report.html).
--
-- Each figure also carries the marks as its rows say, in a
-- <script type="application/json" class="tsmine-marks"> block ({"marks":
-- [{"kind", "pos" (1-based), "length"}]}), which test/shell/check_report.py
-- compares with where the marks appear in a screenshot of the page.
\if :{?report}
\else
\set report demo-report.html
\endif

-- the rows of each figure
CREATE TEMP TABLE r_ecg_discords AS SELECT * FROM ts_discords('SELECT v FROM ecg ORDER BY pos', 256, 3);
CREATE TEMP TABLE r_ecg_profile AS SELECT distance FROM ts_matrix_profile_arrays('SELECT v FROM ecg ORDER BY pos', 256);
CREATE TEMP TABLE r_tek16_motifs AS SELECT * FROM ts_motifs('SELECT v FROM tek16 ORDER BY pos', 128, 3);
CREATE TEMP TABLE r_tek16_profile AS SELECT distance FROM ts_matrix_profile_arrays('SELECT v FROM tek16 ORDER BY pos', 128);
CREATE TEMP TABLE r_tek16_matches AS
  SELECT * FROM ts_match('SELECT v FROM tek16 ORDER BY pos',
                         (SELECT array_agg(v ORDER BY pos) FROM tek16 WHERE pos BETWEEN 3386 AND 3513), k => 5);
CREATE TEMP TABLE r_nab_outliers AS SELECT * FROM ts_outliers(NULL::timestamp, 'SELECT ts, v FROM jumpsup ORDER BY ts', 3);
CREATE TEMP TABLE r_nab_discords AS SELECT * FROM ts_discords(NULL::timestamp, 'SELECT ts, v FROM jumpsup ORDER BY ts', 288, 2);
CREATE TEMP TABLE r_nab_profile AS SELECT distance FROM ts_matrix_profile_arrays('SELECT v FROM jumpsup ORDER BY ts', 288);

-- a figure: heading, note, picture, the marks its rows say, and the rows as a table
CREATE FUNCTION pg_temp.figure(title text, note text, svg text, marks jsonb, head text[], cells text[]) RETURNS text
LANGUAGE sql AS $$
  SELECT format(E'<section>\n<h2>%s</h2>\n<p>%s</p>\n%s<script type="application/json" class="tsmine-marks">%s</script>\n'
                '<table><tr><th>%s</th></tr>%s</table>\n</section>\n',
                title, note, svg, jsonb_build_object('marks', coalesce(marks, '[]')),
                array_to_string(head, '</th><th>'),
                (SELECT string_agg('<tr><td>' || c || '</td></tr>', '') FROM unnest(cells) c))
$$;
-- the marks of rows: kind, 1-based positions, length
CREATE FUNCTION pg_temp.marks(kind text, pos bigint[], length int) RETURNS jsonb LANGUAGE sql AS $$
  SELECT jsonb_agg(jsonb_build_object('kind', kind, 'pos', p, 'length', length)) FROM unnest(pos) p
$$;

\pset format unaligned
\pset tuples_only on
\o :report
SELECT '<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>tsmine demo report</title>
<style>
  body { margin: 0; padding: 16px 20px; background: #eeeeee; color: #222222; font-family: sans-serif; font-size: 14px; }
  h1 { font-size: 20px; margin: 0 0 8px; } h2 { font-size: 16px; margin: 28px 0 4px; } p { margin: 0 0 8px; max-width: 1000px; }
  svg { display: block; } table { border-collapse: collapse; margin-top: 6px; font-size: 12px; }
  td, th { padding: 2px 10px 2px 0; text-align: right; } th { font-weight: normal; color: #666666; }
</style></head><body>
<h1>tsmine on real series</h1>
<p>Pictures made by <code>ts_plot</code> from the rows of the series functions: marks in the strip above each series and as bands behind it,
the matrix profile beneath where shown. Long series are drawn by the first, smallest, largest and last value of each pixel column.</p>';

SELECT pg_temp.figure(
  'ECG qtdbsel102: the three most anomalous heartbeats',
  'ts_discords(''SELECT v FROM ecg ORDER BY pos'', 256, 3), its matrix profile beneath. The first discord is the labelled anomaly (rows 4231..4429).',
  ts_plot('SELECT v FROM ecg ORDER BY pos',
          jsonb_build_object('discords', (SELECT jsonb_agg(d) FROM r_ecg_discords d)), 256,
          profile => (SELECT distance FROM r_ecg_profile), height => 400, title => 'ECG qtdbsel102, lead 1: discords (m = 256)'),
  (SELECT pg_temp.marks('discord', array_agg(pos), 256) FROM r_ecg_discords),
  ARRAY['rank', 'pos', 'distance', 'neighbor'],
  (SELECT array_agg(concat_ws('</td><td>', rank, pos, round(distance::numeric, 3), neighbor) ORDER BY rank) FROM r_ecg_discords));

SELECT pg_temp.figure(
  'TEK16 space shuttle valve: the three closest pairs of cycles',
  'ts_motifs(''SELECT v FROM tek16 ORDER BY pos'', 128, 3): both windows of each pair marked, the matrix profile beneath.',
  ts_plot('SELECT v FROM tek16 ORDER BY pos',
          jsonb_build_object('motifs', (SELECT jsonb_agg(m) FROM r_tek16_motifs m)), 128,
          profile => (SELECT distance FROM r_tek16_profile), height => 400, title => 'TEK16: motifs (m = 128)'),
  (SELECT pg_temp.marks('motif', array_agg(p), 128) FROM r_tek16_motifs, unnest(ARRAY[pos_a, pos_b]) p),
  ARRAY['rank', 'pos_a', 'pos_b', 'distance'],
  (SELECT array_agg(concat_ws('</td><td>', rank, pos_a, pos_b, round(distance::numeric, 4)) ORDER BY rank) FROM r_tek16_motifs));

SELECT pg_temp.figure(
  'TEK16: where the cycle at rows 3386..3513 recurs',
  'ts_match(''SELECT v FROM tek16 ORDER BY pos'', (the 128 values at 3386..3513), k => 5): the five best matches.',
  ts_plot('SELECT v FROM tek16 ORDER BY pos',
          jsonb_build_object('matches', (SELECT jsonb_agg(m) FROM r_tek16_matches m)), 128,
          title => 'TEK16: matches of a pattern (k = 5)'),
  (SELECT pg_temp.marks('match', array_agg(pos), 128) FROM r_tek16_matches),
  ARRAY['rank', 'pos', 'distance'],
  (SELECT array_agg(concat_ws('</td><td>', rank, pos, round(distance::numeric, 4)) ORDER BY rank) FROM r_tek16_matches));

SELECT pg_temp.figure(
  'NAB art_daily_jumpsup: values beyond 3 sigma, with their times',
  'ts_outliers(NULL::timestamp, ''SELECT ts, v FROM jumpsup ORDER BY ts'', 3): the query returns (time, value) rows, so every outlier comes with its time, and the axis shows the times.',
  ts_plot('SELECT ts, v FROM jumpsup ORDER BY ts',
          jsonb_build_object('outliers', (SELECT jsonb_agg(o) FROM r_nab_outliers o)),
          title => 'art_daily_jumpsup: outliers (3 sigma)'),
  (SELECT pg_temp.marks('outlier', array_agg(pos), 1) FROM r_nab_outliers),
  ARRAY['pos', 'time', 'value', 'zscore'],
  (SELECT array_agg(concat_ws('</td><td>', pos, time, round(value::numeric, 2), round(zscore::numeric, 2)) ORDER BY pos)
   FROM (SELECT * FROM r_nab_outliers ORDER BY pos LIMIT 8) o));

SELECT pg_temp.figure(
  'NAB art_daily_jumpsup: the two most unusual days',
  'ts_discords(NULL::timestamp, ''SELECT ts, v FROM jumpsup ORDER BY ts'', 288, 2): windows of a day (288 five-minute readings), with the times they start and the times of their nearest neighbours.',
  ts_plot('SELECT ts, v FROM jumpsup ORDER BY ts',
          jsonb_build_object('discords', (SELECT jsonb_agg(d) FROM r_nab_discords d)), 288,
          profile => (SELECT distance FROM r_nab_profile), height => 400, title => 'art_daily_jumpsup: discords (m = 288)'),
  (SELECT pg_temp.marks('discord', array_agg(pos), 288) FROM r_nab_discords),
  ARRAY['rank', 'start_time', 'distance', 'neighbor_time'],
  (SELECT array_agg(concat_ws('</td><td>', rank, start_time, round(distance::numeric, 3), neighbor_time) ORDER BY rank)
   FROM r_nab_discords));

SELECT '</body></html>';
\o
\pset format aligned
\pset tuples_only off
\echo 'report written to' :'report'
