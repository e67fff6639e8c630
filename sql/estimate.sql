-- ts_estimate: what a call would cost before it runs, and ts_progress and
-- tsmine.progress as one session sees them (another session's view of a
-- running call: test/pgtap/progress.sql; the NOTICEs: test/shell/progress.sh).
SET extra_float_digits = 0;
-- the figures follow the backend and the threads: fix both
SET tsmine.cpu_threads = 1;

-- every function whose cost grows, on the CPU; seconds to the millisecond
SELECT e.function, e.method, e.backend, e.seconds::numeric(20, 3)::float8 AS seconds, e.device_bytes, e.host_bytes
FROM (VALUES ('ts_matrix_profile', 1000000, 100, 1, 'auto'),
             ('ts_matrix_profile_arrays', 100000, 1000, 1, 'auto'),
             ('ts_discords', 100000, 100, 1, 'auto'),
             ('ts_discords', 100000, 100, 10, 'pd3'),
             ('ts_discords', 100000, 100, 10, 'matrix_profile'),
             ('ts_motifs', 100000, 100, 1, 'auto'),
             ('ts_motifs', 100000, 100, 1, 'mk'),
             ('ts_motifs', 100000, 100, 1, 'matrix_profile'),
             ('ts_match', 1000000, 100, 1, 'auto'),
             ('ts_outliers', 10000000, NULL, 1, 'auto'),
             ('ts_outliers', 10000000, NULL, 1, 'mad')) c(f, n, m, k, method),
     ts_estimate(c.f, c.n, c.m, c.k, c.method, backend => 'cpu') e;
SELECT function, method, backend, seconds::numeric(20, 3)::float8 AS seconds, device_bytes, host_bytes
FROM ts_estimate('ts_shapelets', 150, 150, series_count => 50, min_length => 10, step => 10, backend => 'cpu');
SELECT function, seconds::numeric(20, 3)::float8 AS seconds
FROM ts_estimate('ts_shapelet_tree', 150, 150, series_count => 50, min_length => 10, step => 10, backend => 'cpu');

-- the GPU's figures (an H100's rates), asked for, whether or not a GPU is here
SELECT function, method, backend, seconds::numeric(20, 4)::float8 AS seconds, device_bytes, host_bytes
FROM ts_estimate('ts_matrix_profile', 1000000, 100, backend => 'gpu');

-- the time grows as the work: n² for the profile, n for outliers
SELECT round(((SELECT seconds FROM ts_estimate('ts_matrix_profile', 2000000, 100, backend => 'cpu'))
            / (SELECT seconds FROM ts_estimate('ts_matrix_profile', 1000000, 100, backend => 'cpu')))::numeric, 2) AS profile_ratio,
       round(((SELECT seconds FROM ts_estimate('ts_outliers', 20000000, backend => 'cpu'))
            / (SELECT seconds FROM ts_estimate('ts_outliers', 10000000, backend => 'cpu')))::numeric, 2) AS outliers_ratio;

-- more threads, less time
SET tsmine.cpu_threads = 4;
SELECT seconds::numeric(20, 3)::float8 AS seconds FROM ts_estimate('ts_matrix_profile', 1000000, 100, backend => 'cpu');
SET tsmine.cpu_threads = 1;

-- backend NULL: tsmine.backend; small work stays on the CPU in auto mode everywhere
SET tsmine.backend = cpu;
SELECT backend FROM ts_estimate('ts_matrix_profile', 1000000, 100);
RESET tsmine.backend;
SELECT backend FROM ts_estimate('ts_matrix_profile', 1000, 100, backend => 'auto');
-- motifs in auto mode where the profile cannot run: MK
SELECT method FROM ts_estimate('ts_motifs', 100, 60);
-- an empty series costs nothing
SELECT seconds, device_bytes, host_bytes FROM ts_estimate('ts_discords', 0, 100);

-- errors: what a call would reject
SELECT * FROM ts_estimate('ts_everything', 1000, 10);
SELECT * FROM ts_estimate('ts_discords', 1000, 10, method => 'fast');
SELECT * FROM ts_estimate('ts_match', 1000, 10, method => 'pd3');
SELECT * FROM ts_estimate('ts_discords', 1000, 2);
SELECT * FROM ts_estimate('ts_discords', 1000, 600);
SELECT * FROM ts_estimate('ts_match', 100, 200);
SELECT * FROM ts_estimate('ts_motifs', 1000, 10, 0);
SELECT * FROM ts_estimate('ts_matrix_profile', -1, 10);
SELECT * FROM ts_estimate('ts_matrix_profile', 1000);
SELECT * FROM ts_estimate('ts_matrix_profile', 1000, 10, backend => 'tpu');
SELECT * FROM ts_estimate('ts_shapelets', 100, 50);
SELECT * FROM ts_estimate('ts_shapelets', 100, 50, series_count => 10, min_length => 60);
SELECT * FROM ts_estimate(NULL, 100, 10);

-- ts_progress: no call of this session runs while it reads (the other
-- sessions' calls: test/pgtap/progress.sql)
SELECT count(*) FROM ts_progress() WHERE pid = pg_backend_pid();
-- tsmine.progress: -1 (no NOTICEs) by default, seconds
SHOW tsmine.progress;
SET tsmine.progress = '1min';
SHOW tsmine.progress;
SET tsmine.progress = -2;
RESET tsmine.progress;
RESET tsmine.cpu_threads;
