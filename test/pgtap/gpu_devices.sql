-- Several GPUs (tsmine.gpu_devices): the setting's checks (everywhere), and,
-- where a GPU is usable, one long series' matrix profile split over the GPU
-- listed twice and three times (separate streams and memory) against it
-- listed once, bit for bit, with the discords and motifs computed from it;
-- the slots of another backend; a listed GPU that does not exist; a cancelled split call.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS tsmine;
CREATE EXTENSION IF NOT EXISTS dblink;
SELECT plan(20);

-- the setting: 22023 for what is not 'all', empty or CUDA ordinals
SELECT throws_ok($$SELECT set_config('tsmine.gpu_devices', 'gpu0', false)$$, '22023', NULL,
                 'a name that is not an ordinal: invalid_parameter_value');
SELECT throws_ok($$SELECT set_config('tsmine.gpu_devices', '0,,1', false)$$, '22023', NULL, 'an empty entry');
SELECT throws_ok($$SELECT set_config('tsmine.gpu_devices', '64', false)$$, '22023', NULL, 'an ordinal past 63');
SELECT lives_ok($$SELECT set_config('tsmine.gpu_devices', '1, 0, 0', false)$$, 'a list with repeats');
SELECT is(current_setting('tsmine.gpu_devices'), '1, 0, 0', 'kept as written');
RESET tsmine.gpu_devices;
-- the shortest series split over the listed GPUs (shorter: the backend's GPU alone)
SELECT is(current_setting('tsmine.gpu_split_min_length'), '262144', 'tsmine.gpu_split_min_length: 2^18 by default');
SELECT throws_ok($$SELECT set_config('tsmine.gpu_split_min_length', '-1', false)$$, '22023', NULL, 'not negative');

CREATE TEMP TABLE has_gpu AS SELECT count(*) > 0 AS yes FROM ts_device_info() WHERE kind = 'gpu';
SELECT setseed(0.41);
-- 2^18 points with a glitch and a flat stretch: 32 segments of the sweep, the guard at work
CREATE TEMP TABLE walk AS SELECT CASE WHEN (SELECT yes FROM has_gpu)
  THEN (SELECT array_agg(CASE WHEN i = 150000 THEN s + 1e6 WHEN i BETWEEN 90000 AND 90300 THEN 0.5 ELSE s END ORDER BY i)
        FROM (SELECT i, sum(random() - 0.5) OVER (ORDER BY i) AS s FROM generate_series(1, 1 << 18) i) w)
  END AS a;
SET tsmine.backend = gpu;
SET tsmine.gpu_split_min_length = 0;  -- every series split (walk's 2^18 values are split by default too)

-- the results on one GPU, then on the same GPU listed twice and three times
CREATE FUNCTION pg_temp.results(devices text) RETURNS TABLE (what text, result text) AS $$
  SELECT set_config('tsmine.gpu_devices', devices, true);
  SELECT 'profile', md5(p.distance::text || p.neighbor::text) FROM ts_matrix_profile_arrays((SELECT a FROM walk), 100) p
  UNION ALL
  SELECT 'profile, exclusion 5000', md5(p.distance::text || p.neighbor::text)
    FROM ts_matrix_profile_arrays((SELECT a FROM walk), 64, 5000) p
  UNION ALL
  SELECT 'discords', string_agg(format('%s %s %s', d.pos, d.neighbor, float8send(d.distance)), ', ' ORDER BY d.rank)
    FROM ts_discords((SELECT a FROM walk), 100, 5, method => 'matrix_profile') d
  UNION ALL
  SELECT 'motifs', string_agg(format('%s %s %s', o.pos_a, o.pos_b, float8send(o.distance)), ', ' ORDER BY o.rank)
    FROM ts_motifs((SELECT a FROM walk), 100, 3, method => 'matrix_profile') o
$$ LANGUAGE sql VOLATILE;
CREATE TEMP TABLE one AS SELECT * FROM pg_temp.results(CASE WHEN (SELECT yes FROM has_gpu) THEN '0' END) WHERE (SELECT yes FROM has_gpu);
CREATE TEMP TABLE two AS SELECT * FROM pg_temp.results(CASE WHEN (SELECT yes FROM has_gpu) THEN '0,0' END) WHERE (SELECT yes FROM has_gpu);
CREATE TEMP TABLE last_two AS SELECT backend FROM ts_last_run();
CREATE TEMP TABLE three AS SELECT * FROM pg_temp.results(CASE WHEN (SELECT yes FROM has_gpu) THEN '0, 0, 0' END) WHERE (SELECT yes FROM has_gpu);
SELECT CASE WHEN (SELECT yes FROM has_gpu)
  THEN is((SELECT count(*)::int FROM one WHERE result IS NOT NULL), 4, 'one GPU: profiles, discords and motifs')
  ELSE skip('no GPU here', 1) END;
SELECT CASE WHEN (SELECT yes FROM has_gpu)
  THEN is((SELECT string_agg(what, ', ' ORDER BY what) FROM one FULL JOIN two USING (what) WHERE one.result IS DISTINCT FROM two.result),
          NULL, 'GPU 0 listed twice: the same profiles (distances bit for bit), discords and motifs')
  ELSE skip('no GPU here', 1) END;
SELECT CASE WHEN (SELECT yes FROM has_gpu)
  THEN is((SELECT string_agg(what, ', ' ORDER BY what) FROM one FULL JOIN three USING (what) WHERE one.result IS DISTINCT FROM three.result),
          NULL, 'GPU 0 listed three times: the same')
  ELSE skip('no GPU here', 1) END;
SELECT CASE WHEN (SELECT yes FROM has_gpu) THEN is((SELECT backend FROM last_two), 'gpu', 'on the GPU')
  ELSE skip('no GPU here', 1) END;

-- the slots: one of GPU 0, held by this backend, which the setting lists twice
SET tsmine.gpu_devices = '0,0';
SELECT CASE WHEN (SELECT yes FROM has_gpu)
  THEN is((SELECT format('%s %s', listed, held_slot IS NOT NULL AND backends >= 1) FROM ts_gpu_slots() WHERE device_id = 0),
          '2 t', 'ts_gpu_slots: GPU 0 listed twice, a slot of it held by this backend')
  ELSE skip('no GPU here', 1) END;
SELECT CASE WHEN (SELECT yes FROM has_gpu)
  THEN is((SELECT string_agg(backend, ',' ORDER BY device_id) FROM ts_device_info() WHERE device_id = 0), 'gpu',
          'ts_device_info marks the listed GPU')
  ELSE skip('no GPU here', 1) END;

-- another backend on the same GPU: a slot of its own, counted for both (the
-- load by which a new backend picks the least loaded GPU)
SELECT dblink_connect('other', format('dbname=%s user=%s port=%s host=%s', current_database(), current_user,
       current_setting('port'), split_part(current_setting('unix_socket_directories'), ',', 1)));
CREATE TEMP TABLE other_slot AS SELECT CASE WHEN (SELECT yes FROM has_gpu) THEN
  (SELECT s FROM dblink('other', $q$SET tsmine.backend = gpu; SELECT count(*) FROM ts_outliers(ARRAY[1, 2, 3]::float8[]);
     SELECT held_slot FROM ts_gpu_slots() WHERE device_id = 0$q$) AS t(s int)) END AS s;
SELECT CASE WHEN (SELECT yes FROM has_gpu)
  THEN cmp_ok((SELECT backends FROM ts_gpu_slots() WHERE device_id = 0), '>=', 2, 'ts_gpu_slots counts the other backend on GPU 0')
  ELSE skip('no GPU here', 1) END;
SELECT CASE WHEN (SELECT yes FROM has_gpu)
  THEN isnt((SELECT s FROM other_slot), (SELECT held_slot FROM ts_gpu_slots() WHERE device_id = 0), 'which holds another slot of it')
  ELSE skip('no GPU here', 1) END;
SELECT dblink_disconnect('other');

-- a listed GPU that does not exist: a clear error when a call would use it
SELECT set_config('tsmine.gpu_devices', format('0,%s', (SELECT count(*) FROM ts_gpu_slots())), false);
SELECT CASE WHEN (SELECT yes FROM has_gpu)
  THEN throws_like($$SELECT count(*) FROM ts_matrix_profile_arrays((SELECT a FROM walk), 100)$$,
                   'tsmine.gpu_devices names GPU %, but this machine has %', 'a GPU that does not exist: an error naming it')
  ELSE skip('no GPU here', 1) END;
SET tsmine.backend = auto;
SELECT CASE WHEN (SELECT yes FROM has_gpu)
  THEN throws_ok($$SELECT count(*) FROM ts_matrix_profile_arrays((SELECT a FROM walk), 100)$$, '22023', NULL,
                 'also with tsmine.backend = auto (no silent CPU run)')
  ELSE skip('no GPU here', 1) END;
SET tsmine.backend = gpu;

-- a split call cancelled by statement_timeout: stopped between chunks, nothing left on the device
CREATE TEMP TABLE long_walk AS SELECT CASE WHEN (SELECT yes FROM has_gpu)
  THEN (SELECT array_agg(s) FROM (SELECT sum(random() - 0.5) OVER (ORDER BY i) AS s FROM generate_series(1, 1 << 22) i) w)
  END AS a;
SET tsmine.gpu_devices = '0,0';
CREATE FUNCTION pg_temp.run_catching(sql text) RETURNS text AS $$
BEGIN
  EXECUTE sql;
  RETURN 'finished';
EXCEPTION WHEN query_canceled THEN
  RETURN 'cancelled';
END $$ LANGUAGE plpgsql;
SET statement_timeout = '300ms';
CREATE TEMP TABLE cancel AS SELECT pg_temp.run_catching(CASE WHEN (SELECT yes FROM has_gpu)
  THEN 'SELECT count(*) FROM ts_matrix_profile_arrays((SELECT a FROM long_walk), 100)' ELSE 'SELECT 1' END) AS state;
RESET statement_timeout;
SELECT CASE WHEN (SELECT yes FROM has_gpu) THEN is((SELECT state FROM cancel), 'cancelled', 'statement_timeout cancels a split call')
  ELSE skip('no GPU here', 1) END;
SELECT is((SELECT coalesce(max(tsmine_memory), 0) FROM ts_device_info()), 0::bigint, 'and it leaves no device memory behind');
SELECT CASE WHEN (SELECT yes FROM has_gpu)
  THEN is((SELECT md5(p.distance::text || p.neighbor::text) FROM ts_matrix_profile_arrays((SELECT a FROM walk), 100) p),
          (SELECT result FROM one WHERE what = 'profile'), 'the next split call gives the one GPU''s profile')
  ELSE skip('no GPU here', 1) END;
RESET tsmine.gpu_devices;
RESET tsmine.backend;

SELECT * FROM finish();
