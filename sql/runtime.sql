-- The runtime: settings, device information, the last-run report.
SELECT count(*) >= 1 AS has_rows, bool_and(build IN ('cuda', 'cpu-only')) AS build_ok,
       bool_and(version = (SELECT extversion FROM pg_extension WHERE extname = 'tsmine')) AS version_ok
FROM ts_device_info();
-- the settings and their checks
SELECT current_setting('tsmine.backend') IN ('auto', 'gpu', 'cpu') AS backend_ok;
SET tsmine.backend = 'cpu';
SELECT backend FROM ts_device_info() WHERE kind = 'cpu' OR device_id = 0;
SET tsmine.backend = 'sometimes';
SET tsmine.cpu_threads = -1;
SET tsmine.cpu_threads = 2;
SET tsmine.gpu_device = 64;
SET tsmine.gpu_busy = 'error';
SET tsmine.gpu_busy = 'maybe';
SET tsmine.no_such_setting = 1;
RESET tsmine.gpu_busy;
-- the CPU path with one and with two threads gives the same rows
SET tsmine.cpu_threads = 1;
CREATE TEMP TABLE r1 AS SELECT * FROM ts_outliers((SELECT array_agg(sin(i) * (1 + (i % 97 = 0)::int * 5)) FROM generate_series(1, 300000) i), 3);
SET tsmine.cpu_threads = 2;
CREATE TEMP TABLE r2 AS SELECT * FROM ts_outliers((SELECT array_agg(sin(i) * (1 + (i % 97 = 0)::int * 5)) FROM generate_series(1, 300000) i), 3);
SELECT count(*) AS rows, (SELECT count(*) FROM (SELECT * FROM r1 EXCEPT SELECT * FROM r2) d) AS differ FROM r1;
-- ts_last_run reports the call
SELECT function, backend, n, total_ms >= 0 AS timed, input_ms BETWEEN 0 AND total_ms AS input_timed FROM ts_last_run();
RESET tsmine.cpu_threads;
RESET tsmine.backend;
