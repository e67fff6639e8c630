-- The cap on backends holding a GPU context (tsmine.max_gpu_backends): slots
-- are session advisory locks; a backend over the cap falls back to the CPU,
-- waits, or gets an error, as tsmine.gpu_busy says.  The two-session part
-- runs where a GPU is usable.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS tsmine;
CREATE EXTENSION IF NOT EXISTS dblink;
SELECT plan(10);

CREATE TEMP TABLE has_gpu AS SELECT count(*) > 0 AS yes FROM ts_device_info() WHERE kind = 'gpu';
CREATE TEMP TABLE big AS SELECT array_agg(sin(i)) AS a FROM generate_series(1, 1 << 22) i;
-- the outliers of big (none) and the backend that found them
CREATE FUNCTION pg_temp.big_run() RETURNS text AS $$
  SELECT (SELECT count(*) FROM ts_outliers((SELECT a FROM big), 3)) || ' ' || (SELECT backend FROM ts_last_run())
$$ LANGUAGE sql VOLATILE;

-- no slot at all: tsmine.backend = gpu cannot run (55000), auto runs on the CPU
SET tsmine.max_gpu_backends = 0;
SET tsmine.backend = gpu;
SELECT throws_ok($$SELECT count(*) FROM ts_outliers(ARRAY[1, 2, 3]::float8[])$$, '55000', NULL,
                 'backend = gpu without a usable GPU slot is an error');
SET tsmine.backend = auto;
SELECT is((SELECT count(*) FROM ts_outliers((SELECT a FROM big), 3)), 0::bigint, 'auto still answers');
SELECT is((SELECT backend FROM ts_last_run()), 'cpu', 'on the CPU');
RESET tsmine.max_gpu_backends;
RESET tsmine.backend;

-- one slot, held by another session: this one falls back, or errs
SELECT dblink_connect('holder', format('dbname=%s user=%s port=%s host=%s', current_database(), current_user,
       current_setting('port'), split_part(current_setting('unix_socket_directories'), ',', 1)));
SELECT CASE WHEN (SELECT yes FROM has_gpu) THEN
  (SELECT count(*) FROM dblink('holder', 'SET tsmine.max_gpu_backends = 1; SET tsmine.backend = gpu;
     SELECT count(*) FROM ts_outliers(ARRAY[1, 2, 3]::float8[])') AS t(c bigint)) END;
SET tsmine.max_gpu_backends = 1;
SET tsmine.backend = auto;
SELECT CASE WHEN (SELECT yes FROM has_gpu)
  THEN is((SELECT gpu_slot FROM dblink('holder', 'SELECT gpu_slot FROM ts_device_info() WHERE device_id = 0') AS t(gpu_slot int)),
          0, 'the other session holds slot 0')
  ELSE skip('no GPU here', 1) END;
SET tsmine.gpu_busy = cpu;
SELECT CASE WHEN (SELECT yes FROM has_gpu)
  THEN is(pg_temp.big_run(), '0 cpu',
          'over the cap, auto falls back to the CPU')
  ELSE skip('no GPU here', 1) END;
SET tsmine.gpu_busy = error;
SELECT CASE WHEN (SELECT yes FROM has_gpu)
  THEN throws_ok($$SELECT count(*) FROM ts_outliers((SELECT a FROM big), 3)$$, '53000', NULL,
                 'over the cap with gpu_busy = error: insufficient_resources')
  ELSE skip('no GPU here', 1) END;
SELECT dblink_disconnect('holder');
-- the slot is free again once the holder has gone
SELECT pg_sleep(0.2);
SELECT CASE WHEN (SELECT yes FROM has_gpu)
  THEN is(pg_temp.big_run(), '0 gpu',
          'after the holder exits, the slot is taken')
  ELSE skip('no GPU here', 1) END;
RESET tsmine.gpu_busy;
RESET tsmine.max_gpu_backends;
RESET tsmine.backend;

-- tsmine.gpu_memory_limit: too little device memory for the call → the CPU in
-- auto mode, an out-of-memory error (53200) with backend = gpu
SET tsmine.gpu_memory_limit = '1MB';
SET tsmine.backend = auto;
SELECT CASE WHEN (SELECT yes FROM has_gpu)
  THEN is(pg_temp.big_run(), '0 cpu',
          'auto falls back to the CPU when the call needs more than gpu_memory_limit')
  ELSE skip('no GPU here', 1) END;
SET tsmine.backend = gpu;
SELECT CASE WHEN (SELECT yes FROM has_gpu)
  THEN throws_ok($$SELECT count(*) FROM ts_outliers((SELECT a FROM big), 3)$$, '53200', NULL,
                 'backend = gpu past gpu_memory_limit: out_of_memory')
  ELSE skip('no GPU here', 1) END;
RESET tsmine.gpu_memory_limit;
SELECT CASE WHEN (SELECT yes FROM has_gpu)
  THEN is((SELECT coalesce(max(tsmine_memory), 0) FROM ts_device_info()), 0::bigint, 'nothing left on the device')
  ELSE skip('no GPU here', 1) END;
RESET tsmine.backend;

SELECT * FROM finish();
