-- Progress of a running call as another session sees it (ts_progress(),
-- joined with pg_stat_activity), who may see it, and cancel with progress
-- NOTICEs on.
--
-- The call watched cannot finish on its own in the test's time on any machine
-- (a CPU matrix profile of 2^20 points on one thread: about 5·10^11 pair
-- updates, minutes to hours), so the test waits for what it checks, however
-- long that takes, and never depends on speed.  (The NOTICEs' text:
-- test/shell/progress.sh.)
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS tsmine;
CREATE EXTENSION IF NOT EXISTS dblink;
SELECT plan(16);

SELECT is((SELECT count(*) FROM ts_progress()), 0::bigint, 'no call runs: ts_progress() is empty');

-- another session starts a call that does not end on its own, with NOTICEs on
SELECT dblink_connect('other', format('dbname=%s user=%s port=%s host=%s', current_database(), current_user,
       current_setting('port'), split_part(current_setting('unix_socket_directories'), ',', 1)));
SELECT dblink_exec('other', 'SET tsmine.backend = cpu');
SELECT dblink_exec('other', 'SET tsmine.cpu_threads = 1');
SELECT dblink_exec('other', 'SET tsmine.progress = 0');
SELECT dblink_exec('other', 'CREATE TEMP TABLE big AS SELECT array_agg(random()) AS a FROM generate_series(1, 1 << 20)');
CREATE TEMP TABLE other_pid AS SELECT pid FROM dblink('other', 'SELECT pg_backend_pid()') AS t(pid int);
SELECT dblink_send_query('other', 'SELECT count(*) FROM ts_matrix_profile((SELECT a FROM big), 100)');

-- wait until its sweep has done some work (published every 0.2 s)
CREATE FUNCTION pg_temp.wait_for_progress() RETURNS void AS $$
BEGIN
  WHILE NOT EXISTS (SELECT 1 FROM ts_progress() p JOIN other_pid o USING (pid) WHERE p.done > 0) LOOP
    PERFORM pg_sleep(0.05);
  END LOOP;
END $$ LANGUAGE plpgsql;
SELECT pg_temp.wait_for_progress();
CREATE TEMP TABLE seen AS SELECT p.* FROM ts_progress() p JOIN other_pid o USING (pid);

SELECT is((SELECT count(*) FROM seen), 1::bigint, 'ts_progress() shows the other session''s call, once');
SELECT is((SELECT function || ' ' || coalesce(method, '-') || ' ' || backend FROM seen), 'ts_matrix_profile - cpu',
          'with its function, method (none: the profile has one) and backend');
SELECT ok((SELECT total > 0 AND done > 0 AND done <= total FROM seen), 'done and total count the sweep''s work');
SELECT ok((SELECT fraction > 0 AND fraction < 1 AND abs(fraction - done::float8 / total) < 1e-12 FROM seen),
          'fraction is done / total, between 0 and 1');
SELECT ok((SELECT seconds_left > 0 FROM seen), 'the time left is estimated');
SELECT ok((SELECT started <= now() AND seconds_running >= 0 FROM seen), 'started and seconds_running');
SELECT is((SELECT count(*) FROM seen s JOIN pg_stat_activity a USING (pid)
           WHERE a.state = 'active' AND a.query LIKE '%ts_matrix_profile%'), 1::bigint,
          'joined with pg_stat_activity by pid: the active query');
-- the fraction only grows while the call runs
SELECT pg_sleep(0.5);
SELECT ok((SELECT p.done >= s.done AND p.total = s.total FROM ts_progress() p JOIN seen s USING (pid)),
          'done grows, total stays');

-- who may see it: roles with the privileges of the caller's role, or pg_read_all_stats
CREATE ROLE tsm_progress_stranger;
GRANT SELECT ON other_pid TO tsm_progress_stranger;
SET ROLE tsm_progress_stranger;
SELECT is((SELECT count(*) FROM ts_progress() p JOIN other_pid o USING (pid)), 0::bigint,
          'a role without the other role''s privileges does not see the call');
RESET ROLE;
GRANT pg_read_all_stats TO tsm_progress_stranger;
SET ROLE tsm_progress_stranger;
SELECT is((SELECT count(*) FROM ts_progress() p JOIN other_pid o USING (pid)), 1::bigint,
          'with pg_read_all_stats it does');
RESET ROLE;
REVOKE SELECT ON other_pid FROM tsm_progress_stranger;
DROP ROLE tsm_progress_stranger;

-- cancel works as before, NOTICEs on, and the call leaves ts_progress()
CREATE TEMP TABLE cancel_sent AS SELECT pg_cancel_backend(pid) AS sent FROM other_pid;
CREATE FUNCTION pg_temp.wait_other() RETURNS text AS $$
DECLARE r record;
BEGIN
  BEGIN
    SELECT * INTO r FROM dblink_get_result('other') AS t(c bigint);
  EXCEPTION
    WHEN query_canceled THEN  -- dblink raises the remote error as its own
      PERFORM * FROM dblink_get_result('other', false) AS t(c bigint);
      RETURN '57014';
    WHEN OTHERS THEN
      PERFORM * FROM dblink_get_result('other', false) AS t(c bigint);
      RETURN SQLSTATE;
  END;
  PERFORM * FROM dblink_get_result('other', false) AS t(c bigint);
  RETURN '00000';
END $$ LANGUAGE plpgsql;
SELECT ok((SELECT sent FROM cancel_sent), 'pg_cancel_backend reached the other backend');
SELECT is(pg_temp.wait_other(), '57014', 'the call was cancelled');
SELECT is((SELECT count(*) FROM ts_progress() p JOIN other_pid o USING (pid)), 0::bigint,
          'a cancelled call is no longer in ts_progress()');
SELECT is((SELECT c FROM dblink('other', 'SELECT count(*) FROM ts_outliers(''{1,1,1,1,1,1,1,1,1,1,1,9}'')') AS t(c bigint)),
          1::bigint, 'the cancelled session''s next call works');
SELECT is((SELECT count(*) FROM ts_progress() p JOIN other_pid o USING (pid)), 0::bigint,
          'and a finished call is not in ts_progress() either');
SELECT dblink_disconnect('other');

SELECT * FROM finish();
