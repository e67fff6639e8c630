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
-- tsmine.gpu_devices: empty (tsmine.gpu_device alone), 'all', or CUDA ordinals (repeats allowed)
SHOW tsmine.gpu_devices;
SET tsmine.gpu_devices = '0,0';
SHOW tsmine.gpu_devices;
SET tsmine.gpu_devices = 0, 1, 1;
SHOW tsmine.gpu_devices;
SET tsmine.gpu_devices = ' ALL ';
SET tsmine.gpu_devices = '';
SET tsmine.gpu_devices = 'x';
SET tsmine.gpu_devices = '0,,1';
SET tsmine.gpu_devices = '64';
SET tsmine.gpu_devices = '-1';
SET tsmine.gpu_devices = '0;1';
SET tsmine.gpu_devices = 'all,0';
SELECT set_config('tsmine.gpu_devices', repeat('0,', 64) || '0', false);
RESET tsmine.gpu_devices;
-- ts_gpu_slots(): a row per GPU (none without one), no CUDA context started
SELECT count(*) = (SELECT count(*) FROM ts_device_info() WHERE kind = 'gpu') AS one_row_per_gpu,
       coalesce(bool_and(slots = current_setting('tsmine.max_gpu_backends')::int AND backends >= 0), true) AS slots_ok
FROM ts_gpu_slots();
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
-- the core chooses the method and reports the one that ran
SET tsmine.backend = cpu;
CREATE TEMP TABLE wave AS SELECT array_agg(sin(i * 0.3) + (i = 120)::int) AS a FROM generate_series(1, 300) i;
SELECT pos FROM ts_discords((SELECT a FROM wave), 10, 1);
SELECT function, backend FROM ts_last_run();
SELECT pos FROM ts_discords((SELECT a FROM wave), 10, 1, method => 'pd3');
SELECT function FROM ts_last_run();
SELECT count(*) FROM ts_motifs((SELECT a FROM wave), 10, 1, method => 'mk');
SELECT function FROM ts_last_run();
SELECT count(*) FROM ts_motifs((SELECT a FROM wave), 10, 1, method => 'matrix_profile');
SELECT function FROM ts_last_run();
RESET tsmine.backend;
-- the batch ts_shapelet_classify is CPU work: it runs whatever tsmine.backend says
CREATE TEMP TABLE model AS SELECT ts_shapelet_tree($$SELECT l, CASE WHEN l = 'up' THEN ARRAY[1, 2, 3, 4, 5, 6]
  ELSE ARRAY[6, 5, 4, 3, 2, 1] END::float8[] FROM unnest(ARRAY['up', 'down', 'up', 'down']) l$$, 3, 3) AS m;
SET tsmine.backend = gpu;
SELECT label, count(*) FROM ts_shapelet_classify((SELECT m FROM model),
  'SELECT ARRAY[1, 2, 3, 4, 5, 7]::float8[] UNION ALL SELECT ARRAY[9, 5, 4, 3, 2, 1]::float8[]') GROUP BY label ORDER BY label;
RESET tsmine.backend;
