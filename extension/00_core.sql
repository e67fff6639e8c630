-- tsmine extension script (assembled from extension/*.sql by make)
\echo Use "CREATE EXTENSION tsmine" to load this file. \quit

-- ---------------------------------------------------------------------------
-- Runtime
-- ---------------------------------------------------------------------------

CREATE FUNCTION ts_device_info()
RETURNS TABLE (
    backend text,               -- what tsmine.backend resolves to: gpu, auto or cpu ('-' for GPUs tsmine.gpu_devices does not list)
    kind text,                  -- 'gpu' or 'cpu'
    device_id int,              -- CUDA ordinal (NULL for the CPU row)
    name text,
    compute_capability text,
    total_memory bigint,        -- bytes
    free_memory bigint,         -- bytes
    memory_bandwidth_gbs float8,-- theoretical peak
    tsmine_memory bigint,       -- device bytes tsmine holds now (0 between calls)
    gpu_slot int,               -- the slot of this GPU this backend holds (tsmine.max_gpu_backends per GPU), or NULL
    version text,
    build text                  -- 'cuda' or 'cpu-only'
)
AS 'MODULE_PATHNAME', 'ts_device_info'
LANGUAGE C VOLATILE PARALLEL RESTRICTED;

COMMENT ON FUNCTION ts_device_info() IS
'One row per visible GPU (or one CPU row when none is usable): the backend tsmine uses, device name, compute capability, memory, the GPU slot this session holds, and the tsmine version and build flavour.';

CREATE FUNCTION ts_gpu_slots()
RETURNS TABLE (
    device_id int,              -- CUDA ordinal
    listed int,                 -- how many times tsmine.gpu_devices lists it (0: tsmine does not use it)
    slots int,                  -- tsmine.max_gpu_backends: the backends that may hold a context on it at once
    backends int,               -- backends holding one of its slots now, this one included
    held_slot int               -- the slot of it this backend holds, or NULL
)
AS 'MODULE_PATHNAME', 'ts_gpu_slots'
LANGUAGE C VOLATILE PARALLEL RESTRICTED;

COMMENT ON FUNCTION ts_gpu_slots() IS
'One row per visible GPU (none without one): how many times tsmine.gpu_devices lists it, its slots (tsmine.max_gpu_backends), how many backends hold one of them now, this one included, and the slot this backend holds. A new backend takes a slot of the least loaded listed GPU.';

CREATE FUNCTION ts_last_run()
RETURNS TABLE (
    function text,
    backend text,               -- 'gpu' or 'cpu'
    n bigint,                   -- values in the series
    total_ms float8,            -- the whole call inside tsmine, input reading included
    device_ms float8,           -- GPU part: transfers + kernels (NULL on the CPU)
    kernel_ms float8,           -- kernels alone
    device_bytes float8,        -- bytes the kernels read and wrote
    bandwidth_gbs float8,       -- device_bytes / kernel time
    input_ms float8             -- reading the series argument (array or query), part of total_ms
)
AS 'MODULE_PATHNAME', 'ts_last_run'
LANGUAGE C VOLATILE PARALLEL RESTRICTED;

COMMENT ON FUNCTION ts_last_run() IS
'Timings of this session''s last tsmine call: backend used, series length, total time, device and kernel time, the kernels'' achieved memory bandwidth, and the time spent reading the series.';

CREATE FUNCTION ts_progress()
RETURNS TABLE (
    pid int,                    -- the backend running the call (join pg_stat_activity on pid)
    function text,              -- the SQL function, e.g. 'ts_matrix_profile'
    method text,                -- the method it runs now ('matrix_profile', 'pd3', 'mk'), or NULL
    backend text,               -- 'gpu' or 'cpu'
    started timestamptz,        -- when the call's work began (its series read)
    seconds_running float8,
    fraction float8,            -- of the work done, 0 to 1; NULL where the work depends on the data
    seconds_left float8,        -- estimated from the rate so far; NULL while unknown
    done bigint,                -- units of work done (the method's own units) ...
    total bigint                -- ... of total; NULL where unknown
)
AS 'MODULE_PATHNAME', 'ts_progress'
LANGUAGE C VOLATILE PARALLEL RESTRICTED;

COMMENT ON FUNCTION ts_progress() IS
'One row per tsmine call running now in any session whose role the caller has the privileges of (every session with pg_read_all_stats): its pid (join pg_stat_activity), function, method, backend, start, the fraction of its work done and the estimated seconds left.';

CREATE FUNCTION ts_estimate(function text, n bigint, m int DEFAULT NULL, k int DEFAULT 1, method text DEFAULT 'auto',
                            backend text DEFAULT NULL, series_count bigint DEFAULT NULL, min_length int DEFAULT NULL,
                            step int DEFAULT 1)
RETURNS TABLE (
    function text,
    method text,                -- the method the call would run ('matrix_profile', 'pd3', 'mk', 'sigma', 'mad'), or NULL
    backend text,               -- 'gpu' or 'cpu': where the call would run
    seconds float8,             -- the work inside tsmine (reading a query and returning rows come on top)
    device_bytes bigint,        -- GPU memory the call would hold at its peak (0 on the CPU)
    host_bytes bigint           -- host memory it would allocate besides its input and result rows
)
AS 'MODULE_PATHNAME', 'ts_estimate'
LANGUAGE C STABLE PARALLEL RESTRICTED CALLED ON NULL INPUT ROWS 1;

COMMENT ON FUNCTION ts_estimate(text, bigint, int, int, text, text, bigint, int, int) IS
'What a call would cost before it runs: for function (ts_matrix_profile, ts_matrix_profile_arrays, ts_discords, ts_motifs, ts_match, ts_outliers, ts_shapelets, ts_shapelet_tree), a series of n values, window or pattern length m, k results and method, the backend and method the call would use (backend NULL: as tsmine.backend says), its estimated seconds and its device and host memory, from the rates the automatic choices use. Shapelets: n values in each of series_count training series, lengths min_length..m by step.';
