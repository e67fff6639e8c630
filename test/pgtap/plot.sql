-- ts_plot: the SVG it returns is well-formed XML, its marks are the rows
-- passed (bars with the rows' positions, both members of a motif pair), the
-- array and query forms draw the same picture, times label the axis, and
-- every error has its SQLSTATE.
BEGIN;
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS tsmine;
SELECT plan(24);

CREATE TEMP TABLE pl AS
  SELECT i, timestamptz '2024-05-01 00:00+00' + i * interval '10 minutes' AS ts,
         sin(i * 0.05) + CASE WHEN i BETWEEN 2000 AND 2030 THEN 0.8 * (i % 4) ELSE 0 END + CASE WHEN i = 4000 THEN 8 ELSE 0 END AS v
  FROM generate_series(1, 6000) i;
CREATE TEMP TABLE pa AS SELECT array_agg(ts ORDER BY i) AS t, array_agg(v ORDER BY i) AS v FROM pl;
CREATE TEMP TABLE d AS SELECT * FROM ts_discords((SELECT v FROM pa), 100, 3);
CREATE TEMP TABLE mo AS SELECT * FROM ts_motifs((SELECT v FROM pa), 100, 2);
CREATE TEMP TABLE o AS SELECT * FROM ts_outliers((SELECT v FROM pa), 4);
CREATE TEMP TABLE pic AS
  SELECT ts_plot(pa.v, jsonb_build_object('discords', (SELECT jsonb_agg(d) FROM d), 'motifs', (SELECT jsonb_agg(mo) FROM mo),
                                          'outliers', (SELECT jsonb_agg(o) FROM o)),
                 100, profile => (SELECT distance FROM ts_matrix_profile_arrays(pa.v, 100)), title => 'a <test> & more') AS svg
  FROM pa;
-- the bars of a picture: kind and 0-based position
CREATE FUNCTION pg_temp.bars(svg text) RETURNS TABLE (kind text, pos bigint) LANGUAGE sql AS $$
  SELECT m[1], m[2]::bigint FROM regexp_matches(svg, 'class="markbar (\w+)"[^>]* data-pos="(\d+)"', 'g') m
$$;

SELECT ok(xml_is_well_formed_document((SELECT svg FROM pic)), 'the SVG is a well-formed XML document');
SELECT ok((SELECT svg LIKE '<svg xmlns="http://www.w3.org/2000/svg" width="1000" height="320"%</svg>' || E'\n' FROM pic),
          'an <svg> element of the default size, 1000 x 320');
SELECT ok((SELECT svg LIKE '%a &lt;test&gt; &amp; more%' FROM pic), 'the title is escaped');
SELECT ok((SELECT svg LIKE '%class="profile"%' FROM pic), 'the profile is drawn beneath');
SELECT set_eq($$SELECT pos FROM pg_temp.bars((SELECT svg FROM pic)) WHERE kind = 'discord'$$,
              $$SELECT pos - 1 FROM d$$, 'a discord bar at each discord''s position');
SELECT set_eq($$SELECT pos FROM pg_temp.bars((SELECT svg FROM pic)) WHERE kind = 'motif'$$,
              $$SELECT pos_a - 1 FROM mo UNION ALL SELECT pos_b - 1 FROM mo$$, 'a motif bar at both members of each pair');
SELECT set_eq($$SELECT pos FROM pg_temp.bars((SELECT svg FROM pic)) WHERE kind = 'outlier'$$,
              $$SELECT pos - 1 FROM o$$, 'an outlier bar at each outlier');
SELECT cmp_ok((SELECT count(*)::int FROM o), '>', 0, '... of which there are some');
SELECT is((SELECT string_agg(m[1], ',') FROM pic, regexp_matches(svg, 'data-length="(\d+)"', 'g') m
           WHERE m[1] <> '100' AND m[1] <> '1'), NULL, 'windows of m = 100 values, outliers of 1');
SELECT is(ts_plot((SELECT v FROM pa), '{"matches": [{"pos": 10, "length": 7, "rank": 2}, 42]}', 50),
          ts_plot('SELECT v FROM pl ORDER BY i', '{"matches": [{"pos": 10, "length": 7, "rank": 2}, 42]}', 50),
          'the array and query forms draw the same picture (rows or positions, a row''s own length)');
SELECT ok(ts_plot((SELECT v FROM pa), '{"matches": [{"pos": 10, "length": 7, "rank": 2}]}') ~ 'data-pos="9" data-length="7"/>\s*<text[^>]*>S2</text>',
          'a match bar, labelled S and its rank');
SELECT ok(ts_plot((SELECT v FROM pa), '{}') NOT LIKE '%markbar%', 'no marks: no bars');

-- times on the axis
SET LOCAL timezone = 'UTC';
SET LOCAL datestyle = 'ISO';
SELECT ok(ts_plot((SELECT v FROM pa), times => (SELECT t FROM pa)) LIKE '%>2024-05-01 00:10:00+00</text>%',
          'times label the axis (the first value''s time)');
SELECT is(ts_plot((SELECT v FROM pa), times => (SELECT t FROM pa)), ts_plot('SELECT ts, v FROM pl ORDER BY i'),
          'a (time, value) query labels it the same');
SELECT ok(ts_plot((SELECT v FROM pa)) LIKE '%>1</text>%' AND ts_plot((SELECT v FROM pa)) NOT LIKE '%2024-05-01%',
          'without times, positions label it');

-- errors
SELECT throws_ok($$SELECT ts_plot((SELECT v FROM pa), '{"peaks": []}')$$, '22023', NULL, 'an unknown kind of marks → 22023');
SELECT throws_ok($$SELECT ts_plot((SELECT v FROM pa), '[1, 2]')$$, '22023', NULL, 'marks not an object → 22023');
SELECT throws_ok($$SELECT ts_plot((SELECT v FROM pa), '{"motifs": [{"pos": 3}]}', 10)$$, '22023', NULL,
                 'a motif row without pos_a and pos_b → 22023');
SELECT throws_ok($$SELECT ts_plot((SELECT v FROM pa), '{"discords": [5999]}', 10)$$, '22023', NULL,
                 'a mark past the end of the series → 22023');
SELECT throws_ok($$SELECT ts_plot((SELECT v FROM pa), '{"discords": [5]}')$$, '22023', NULL,
                 'a window without its length (no m) → 22023');
SELECT throws_ok($$SELECT ts_plot((SELECT v FROM pa), width => 50)$$, '22023', NULL, 'a width below 200 → 22023');
SELECT throws_ok($$SELECT ts_plot(ARRAY[1, 2, 3]::float8[], times => ARRAY[1, 2])$$, '22023', NULL,
                 'times of another length → 22023');
SELECT throws_ok($$SELECT ts_plot(NULL::float8[])$$, '22004', NULL, 'a NULL series → 22004');
SELECT throws_ok($$SELECT ts_plot('SELECT i, ts, v FROM pl')$$, '42804', NULL, 'a query of three columns → 42804');

SELECT * FROM finish();
ROLLBACK;
