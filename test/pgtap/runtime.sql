-- The runtime: cancel (pg_cancel_backend and statement_timeout) stops a long
-- call promptly and the session goes on; device memory does not grow over
-- 1,000 calls, failing ones included.
--
-- Every call that these tests cancel cannot finish on its own in the test's
-- time on any machine (a CPU matrix profile of 2^20 points on one thread is
-- about 5·10^11 pair updates: minutes to hours), so whether it is cancelled
-- does not depend on speed.  The bounds on how long the cancel took are
-- generous (10 s for a 300 ms timeout): they tell a cancel between chunks from
-- a call that ran to its end, not how fast the machine is.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS tsmine;
CREATE EXTENSION IF NOT EXISTS dblink;
SELECT plan(14);

-- A CPU call that cannot finish in the test's time: the matrix profile of
-- 2^20 values on one thread.
SELECT setseed(0.1);
CREATE TEMP TABLE big AS SELECT array_agg(random()) AS a FROM generate_series(1, 1 << 20);

-- Runs sql, catching a cancel; returns the SQLSTATE ('00000' if none) and
-- the milliseconds since the statement started.
CREATE FUNCTION pg_temp.run_catching(sql text, OUT state text, OUT ms float8) AS $$
BEGIN
  state := '00000';
  BEGIN
    EXECUTE sql;
  EXCEPTION WHEN query_canceled THEN
    state := '57014';
  END;
  ms := extract(epoch FROM clock_timestamp() - statement_timestamp()) * 1000;
END $$ LANGUAGE plpgsql;

-- statement_timeout during the core's CPU work
SET tsmine.backend = cpu;
SET tsmine.cpu_threads = 1;
SET statement_timeout = '300ms';
CREATE TEMP TABLE t1 AS SELECT * FROM pg_temp.run_catching('SELECT count(*) FROM ts_matrix_profile((SELECT a FROM big), 100)');
RESET statement_timeout;
SELECT is((SELECT state FROM t1), '57014', 'statement_timeout cancels a long CPU call');
SELECT cmp_ok((SELECT ms FROM t1), '<', 10000::float8, 'and stops between chunks, long before the call would end');

-- statement_timeout while the query form is reading its series
SET statement_timeout = '300ms';
CREATE TEMP TABLE t2 AS SELECT * FROM pg_temp.run_catching('SELECT count(*) FROM ts_outliers(''SELECT random() FROM generate_series(1, 300000000)'')');
RESET statement_timeout;
SELECT is((SELECT state FROM t2), '57014', 'statement_timeout cancels the query form while it reads');
SELECT cmp_ok((SELECT ms FROM t2), '<', 10000::float8, 'and stops while reading, long before the query would end');

-- pg_cancel_backend from another session
SELECT dblink_connect('other', format('dbname=%s user=%s port=%s host=%s', current_database(), current_user,
       current_setting('port'), split_part(current_setting('unix_socket_directories'), ',', 1)));
SELECT dblink_exec('other', 'SET tsmine.backend = cpu');
SELECT dblink_exec('other', 'SET tsmine.cpu_threads = 1');
SELECT dblink_exec('other', 'CREATE TEMP TABLE big AS SELECT array_agg(random()) AS a FROM generate_series(1, 1 << 20)');
CREATE TEMP TABLE other_pid AS SELECT pid FROM dblink('other', 'SELECT pg_backend_pid()') AS t(pid int);
SELECT dblink_send_query('other', 'SELECT count(*) FROM ts_matrix_profile((SELECT a FROM big), 100)');
-- the cancel must reach a running statement: wait until the other backend is
-- active (a cancel is honoured from then on), however long that takes
DO $$
BEGIN
  WHILE NOT EXISTS (SELECT 1 FROM pg_stat_activity a JOIN other_pid o ON a.pid = o.pid
                    WHERE a.state = 'active' AND a.query LIKE '%ts_matrix_profile%') LOOP
    PERFORM pg_sleep(0.01);
    PERFORM pg_stat_clear_snapshot();
  END LOOP;
END $$;
SELECT pg_sleep(0.2);
CREATE TEMP TABLE cancel_at AS SELECT clock_timestamp() AS t, pg_cancel_backend(pid) AS sent FROM other_pid;
CREATE FUNCTION pg_temp.wait_other(OUT state text, OUT ms float8) AS $$
DECLARE r record;
BEGIN
  state := '00000';
  BEGIN
    SELECT * INTO r FROM dblink_get_result('other') AS t(c bigint);
  EXCEPTION
    WHEN query_canceled THEN state := '57014';
    WHEN OTHERS THEN state := SQLSTATE;
  END;
  ms := extract(epoch FROM clock_timestamp() - (SELECT t FROM cancel_at)) * 1000;
  -- consume the end of the asynchronous query so the connection is free again
  PERFORM * FROM dblink_get_result('other', false) AS t(c bigint);
END $$ LANGUAGE plpgsql;
CREATE TEMP TABLE t3 AS SELECT * FROM pg_temp.wait_other();
SELECT ok((SELECT sent FROM cancel_at), 'pg_cancel_backend reached the other backend');
SELECT is((SELECT state FROM t3), '57014', 'pg_cancel_backend cancels a long call');
SELECT cmp_ok((SELECT ms FROM t3), '<', 10000::float8, 'between chunks, long before the call would end');
SELECT is((SELECT c FROM dblink('other', 'SELECT count(*) FROM ts_outliers(ARRAY[1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 9]::float8[])') AS t(c bigint)),
          1::bigint, 'the cancelled session''s next call works');
SELECT dblink_disconnect('other');
RESET tsmine.cpu_threads;
RESET tsmine.backend;

-- statement_timeout during long GPU work (a matrix profile of 2^22 points
-- takes seconds on an H100); skipped where no GPU is usable
CREATE TEMP TABLE has_gpu AS SELECT count(*) > 0 AS yes FROM ts_device_info() WHERE kind = 'gpu';
SELECT setseed(0.3);
CREATE TEMP TABLE long_walk AS SELECT CASE WHEN (SELECT yes FROM has_gpu)
  THEN (SELECT array_agg(s) FROM (SELECT sum(random() - 0.5) OVER (ORDER BY i) AS s FROM generate_series(1, 1 << 22) i) w)
  ELSE NULL END AS a;
SET tsmine.backend = gpu;
SET statement_timeout = '300ms';
CREATE TEMP TABLE t4 AS SELECT * FROM pg_temp.run_catching(CASE WHEN (SELECT yes FROM has_gpu)
  THEN 'SELECT count(*) FROM ts_matrix_profile((SELECT a FROM long_walk), 100)' ELSE 'SELECT 1' END);
RESET statement_timeout;
RESET tsmine.backend;
SELECT CASE WHEN (SELECT yes FROM has_gpu) THEN is((SELECT state FROM t4), '57014', 'statement_timeout cancels long GPU work')
            ELSE skip('no GPU here', 1) END;
SELECT CASE WHEN (SELECT yes FROM has_gpu) THEN cmp_ok((SELECT ms FROM t4), '<', 10000::float8, 'and stops between chunks, long before the call would end')
            ELSE skip('no GPU here', 1) END;
SELECT is((SELECT coalesce(max(tsmine_memory), 0) FROM ts_device_info()), 0::bigint,
          'a cancelled GPU call leaves no device memory behind');

-- 1,000 calls, every tenth one failing, on the configured backend: nothing
-- stays on the device.
CREATE TEMP TABLE mem_before AS SELECT coalesce(sum(free_memory) FILTER (WHERE kind = 'gpu'), 0) AS free FROM ts_device_info();
DO $$
DECLARE
  a float8[] := (SELECT array_agg(sin(i) + (i % 1000 = 0)::int * 20) FROM generate_series(1, 200000) i);
  bad float8[] := a || 'NaN'::float8;
BEGIN
  FOR i IN 1..1000 LOOP
    IF i % 10 = 0 THEN
      BEGIN
        PERFORM count(*) FROM ts_outliers(bad, 3);
      EXCEPTION WHEN data_exception THEN NULL;
      END;
    ELSIF i % 10 = 5 THEN
      PERFORM count(*) FROM ts_outliers(a, 3, 'mad');
    ELSE
      PERFORM count(*) FROM ts_outliers(a, 3);
    END IF;
  END LOOP;
END $$;
SELECT is((SELECT coalesce(max(tsmine_memory), 0) FROM ts_device_info()), 0::bigint,
          'tsmine holds no device memory after 1,000 calls');
SELECT cmp_ok((SELECT mem_before.free - coalesce(sum(free_memory) FILTER (WHERE kind = 'gpu'), 0) FROM ts_device_info(), mem_before GROUP BY mem_before.free),
              '<', (64 << 20)::numeric, 'free device memory has not shrunk by more than 64 MB');
SELECT is((SELECT count(*) FROM ts_outliers((SELECT array_agg(sin(i) + (i % 1000 = 0)::int * 20) FROM generate_series(1, 200000) i), 3)),
          200::bigint, 'and the next call is right');

SELECT * FROM finish();
