-- tsmine extension script (assembled from extension/*.sql by make)
\echo Use "CREATE EXTENSION tsmine" to load this file. \quit

-- ---------------------------------------------------------------------------
-- Runtime
-- ---------------------------------------------------------------------------

CREATE FUNCTION ts_device_info()
RETURNS TABLE (
    backend text,               -- what tsmine.backend resolves to: gpu, auto or cpu ('-' for other GPUs)
    kind text,                  -- 'gpu' or 'cpu'
    device_id int,              -- CUDA ordinal (NULL for the CPU row)
    name text,
    compute_capability text,
    total_memory bigint,        -- bytes
    free_memory bigint,         -- bytes
    memory_bandwidth_gbs float8,-- theoretical peak
    tsmine_memory bigint,       -- device bytes tsmine holds now (0 between calls)
    gpu_slot int,               -- the tsmine.max_gpu_backends slot this backend holds, or NULL
    version text,
    build text                  -- 'cuda' or 'cpu-only'
)
AS 'MODULE_PATHNAME', 'ts_device_info'
LANGUAGE C VOLATILE PARALLEL RESTRICTED;

COMMENT ON FUNCTION ts_device_info() IS
'One row per visible GPU (or one CPU row when none is usable): the backend tsmine uses, device name, compute capability, memory, the GPU slot this session holds, and the tsmine version and build flavour.';

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
