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
-- ---------------------------------------------------------------------------
-- Outliers
-- ---------------------------------------------------------------------------

CREATE FUNCTION ts_outliers(series float8[], k_sigma float8 DEFAULT 3.0, method text DEFAULT 'sigma')
RETURNS TABLE (pos bigint, value float8, zscore float8)
AS 'MODULE_PATHNAME', 'ts_outliers'
LANGUAGE C STABLE PARALLEL SAFE CALLED ON NULL INPUT ROWS 10;

COMMENT ON FUNCTION ts_outliers(float8[], float8, text) IS
'Values beyond k_sigma: method ''sigma'' flags |x - mean| > k_sigma * std (population std, two-pass); ''mad'' flags |0.6745 (x - median) / MAD| > k_sigma (if MAD = 0: |x - median| / (1.253314 MeanAD) > k_sigma; if that is 0 too, none). Returns 1-based positions in series order, the value and its (modified) z-score.';

CREATE FUNCTION ts_outliers(series_sql text, k_sigma float8 DEFAULT 3.0, method text DEFAULT 'sigma')
RETURNS TABLE (pos bigint, value float8, zscore float8)
AS 'MODULE_PATHNAME', 'ts_outliers_query'
LANGUAGE C VOLATILE PARALLEL UNSAFE CALLED ON NULL INPUT ROWS 10;

COMMENT ON FUNCTION ts_outliers(text, float8, text) IS
'ts_outliers over the series that series_sql returns (one numeric column; its rows in the query''s order are the series, positions 1-based in that order). The query runs with the caller''s privileges.';
-- ---------------------------------------------------------------------------
-- Matrix profile and discords
-- ---------------------------------------------------------------------------

CREATE FUNCTION ts_matrix_profile(series float8[], m int, exclusion_zone int DEFAULT NULL)
RETURNS TABLE (pos bigint, distance float8, neighbor bigint)
AS 'MODULE_PATHNAME', 'ts_matrix_profile'
LANGUAGE C STABLE PARALLEL SAFE CALLED ON NULL INPUT ROWS 1000;

COMMENT ON FUNCTION ts_matrix_profile(float8[], int, int) IS
'Exact self-join matrix profile in float64: for each window of length m (1-based pos), the z-normalised Euclidean distance to its nearest neighbour and that neighbour''s position, among windows with |pos - neighbor| >= exclusion_zone (default ceil(m/4) + 1, which excludes what STUMPY''s excl_zone = ceil(m/4) excludes). Constant windows follow STUMPY: two constant windows are at 0, a constant and a non-constant one at sqrt(m). NULL distance and neighbour when no window qualifies.';

CREATE FUNCTION ts_matrix_profile(series_sql text, m int, exclusion_zone int DEFAULT NULL)
RETURNS TABLE (pos bigint, distance float8, neighbor bigint)
AS 'MODULE_PATHNAME', 'ts_matrix_profile_query'
LANGUAGE C VOLATILE PARALLEL UNSAFE CALLED ON NULL INPUT ROWS 1000;

COMMENT ON FUNCTION ts_matrix_profile(text, int, int) IS
'ts_matrix_profile over the series that series_sql returns (one numeric column, in the query''s order).';

CREATE FUNCTION ts_matrix_profile_arrays(series float8[], m int, exclusion_zone int DEFAULT NULL)
RETURNS TABLE (distance float8[], neighbor bigint[])
AS 'MODULE_PATHNAME', 'ts_matrix_profile_arrays'
LANGUAGE C STABLE PARALLEL SAFE CALLED ON NULL INPUT ROWS 1;

COMMENT ON FUNCTION ts_matrix_profile_arrays(float8[], int, int) IS
'ts_matrix_profile as one row of two arrays, element i for the window at position i (as STUMPY''s P and I, 1-based): distance[i] and neighbor[i] are NULL when no window qualifies. Faster than the row form when the whole profile is kept or processed as a whole; up to about 67 million windows (1 GB).';

CREATE FUNCTION ts_matrix_profile_arrays(series_sql text, m int, exclusion_zone int DEFAULT NULL)
RETURNS TABLE (distance float8[], neighbor bigint[])
AS 'MODULE_PATHNAME', 'ts_matrix_profile_arrays_query'
LANGUAGE C VOLATILE PARALLEL UNSAFE CALLED ON NULL INPUT ROWS 1;

COMMENT ON FUNCTION ts_matrix_profile_arrays(text, int, int) IS
'ts_matrix_profile_arrays over the series that series_sql returns (one numeric column, in the query''s order).';

CREATE FUNCTION ts_discords(series float8[], m int, k int DEFAULT 1, min_distance float8 DEFAULT NULL,
                            exclusion_zone int DEFAULT NULL, method text DEFAULT 'auto')
RETURNS TABLE (rank int, pos bigint, distance float8, neighbor bigint)
AS 'MODULE_PATHNAME', 'ts_discords'
LANGUAGE C STABLE PARALLEL SAFE CALLED ON NULL INPUT ROWS 10;

COMMENT ON FUNCTION ts_discords(float8[], int, int, float8, int, text) IS
'Exact discords of length m: windows whose nearest non-self match (|i - j| >= exclusion_zone, default m) is farthest, by z-normalised Euclidean distance. Without min_distance: the top k, each not overlapping (|i - j| < m) one ranked before it. With min_distance: every range discord (nearest-neighbour distance >= min_distance), ranked, at most k (k => NULL for all). method: pd3 (GPU parallel DRAG), matrix_profile, or auto.';

CREATE FUNCTION ts_discords(series_sql text, m int, k int DEFAULT 1, min_distance float8 DEFAULT NULL,
                            exclusion_zone int DEFAULT NULL, method text DEFAULT 'auto')
RETURNS TABLE (rank int, pos bigint, distance float8, neighbor bigint)
AS 'MODULE_PATHNAME', 'ts_discords_query'
LANGUAGE C VOLATILE PARALLEL UNSAFE CALLED ON NULL INPUT ROWS 10;

COMMENT ON FUNCTION ts_discords(text, int, int, float8, int, text) IS
'ts_discords over the series that series_sql returns (one numeric column, in the query''s order).';
-- ---------------------------------------------------------------------------
-- Motifs and similarity search
-- ---------------------------------------------------------------------------

CREATE FUNCTION ts_motifs(series float8[], m int, k int DEFAULT 1, exclusion_zone int DEFAULT NULL,
                          method text DEFAULT 'auto', n_references int DEFAULT 10)
RETURNS TABLE (rank int, pos_a bigint, pos_b bigint, distance float8)
AS 'MODULE_PATHNAME', 'ts_motifs'
LANGUAGE C STABLE PARALLEL SAFE CALLED ON NULL INPUT ROWS 10;

COMMENT ON FUNCTION ts_motifs(float8[], int, int, int, text, int) IS
'Exact top-k motif pairs of length m by z-normalised Euclidean distance: pos_a < pos_b, pos_b - pos_a >= exclusion_zone (default m); a later pair shares no member with, and does not overlap, an earlier one. method: mk (the MK algorithm with n_references reference windows), matrix_profile, or auto. Ties: smaller distance, then smaller pos_a, then smaller pos_b.';

CREATE FUNCTION ts_motifs(series_sql text, m int, k int DEFAULT 1, exclusion_zone int DEFAULT NULL,
                          method text DEFAULT 'auto', n_references int DEFAULT 10)
RETURNS TABLE (rank int, pos_a bigint, pos_b bigint, distance float8)
AS 'MODULE_PATHNAME', 'ts_motifs_query'
LANGUAGE C VOLATILE PARALLEL UNSAFE CALLED ON NULL INPUT ROWS 10;

COMMENT ON FUNCTION ts_motifs(text, int, int, int, text, int) IS
'ts_motifs over the series that series_sql returns (one numeric column, in the query''s order).';

CREATE FUNCTION ts_match(series float8[], pattern float8[], max_distance float8 DEFAULT NULL, k int DEFAULT NULL,
                         exclusion_zone int DEFAULT NULL)
RETURNS TABLE (rank int, pos bigint, distance float8)
AS 'MODULE_PATHNAME', 'ts_match'
LANGUAGE C STABLE PARALLEL SAFE CALLED ON NULL INPUT ROWS 10;

COMMENT ON FUNCTION ts_match(float8[], float8[], float8, int, int) IS
'Every occurrence of pattern in series by z-normalised Euclidean distance, best first: greedy by distance, skipping windows within exclusion_zone (default the pattern length) of one already returned; at most k (NULL: all), none farther than max_distance (NULL: no limit). ts_match(series, series[p:p+m-1]) gives the motif set of the window at p.';

CREATE FUNCTION ts_match(series_sql text, pattern float8[], max_distance float8 DEFAULT NULL, k int DEFAULT NULL,
                         exclusion_zone int DEFAULT NULL)
RETURNS TABLE (rank int, pos bigint, distance float8)
AS 'MODULE_PATHNAME', 'ts_match_query'
LANGUAGE C VOLATILE PARALLEL UNSAFE CALLED ON NULL INPUT ROWS 10;

COMMENT ON FUNCTION ts_match(text, float8[], float8, int, int) IS
'ts_match over the series that series_sql returns (one numeric column, in the query''s order).';
-- ---------------------------------------------------------------------------
-- Shapelets
-- ---------------------------------------------------------------------------

CREATE FUNCTION ts_shapelets(training_sql text, min_length int, max_length int, step int DEFAULT 1, k int DEFAULT 1)
RETURNS TABLE (rank int, source_row bigint, start int, length int, threshold float8, info_gain float8,
               gap float8, shapelet float8[])
AS 'MODULE_PATHNAME', 'ts_shapelets'
LANGUAGE C VOLATILE PARALLEL UNSAFE CALLED ON NULL INPUT ROWS 10;

COMMENT ON FUNCTION ts_shapelets(text, int, int, int, int) IS
'The k best shapelets of a labelled training set: training_sql returns (label, series float8[]) rows (labels of any type, compared as text). Every subsequence of every series with length min_length..max_length (by step) is a candidate; its quality is the information gain (bits) of the best split of the series by their distance to it (Definition 1: the minimum z-normalised, length-normalised Euclidean distance, in [0, 2]); ties by separation gap, then shorter length, smaller source_row, smaller start. source_row and start are 1-based; threshold is the split point.';

CREATE FUNCTION ts_shapelet_distance(shapelet float8[], series float8[])
RETURNS float8
AS 'MODULE_PATHNAME', 'ts_shapelet_distance'
LANGUAGE C IMMUTABLE PARALLEL SAFE CALLED ON NULL INPUT;

COMMENT ON FUNCTION ts_shapelet_distance(float8[], float8[]) IS
'Definition 1: the minimum over positions of the z-normalised, length-normalised Euclidean distance sqrt(sum (z_a - z_b)^2 / L) = sqrt(2 (1 - rho)) between shapelet and the windows of series; in [0, 2]. A flat window against a non-flat one counts as distance 1, two flat ones as 0.';

CREATE FUNCTION ts_shapelet_tree(training_sql text, min_length int, max_length int, step int DEFAULT 1,
                                 max_depth int DEFAULT NULL, logical boolean DEFAULT false)
RETURNS jsonb
AS 'MODULE_PATHNAME', 'ts_shapelet_tree'
LANGUAGE C VOLATILE PARALLEL UNSAFE CALLED ON NULL INPUT;

COMMENT ON FUNCTION ts_shapelet_tree(text, int, int, int, int, boolean) IS
'A shapelet decision tree (Algorithm 2 of the GPU shapelet paper) over the training set of training_sql (label, series float8[]): each split holds the best shapelet of its subset and a distance threshold (near side: distance <= threshold goes left); leaves hold the majority label and the class counts. With logical, a split may hold two shapelets combined by AND (max of the distances) or OR (min). max_depth NULL grows until the leaves are pure or no split gains. Returns the model as jsonb for ts_shapelet_classify.';

CREATE FUNCTION ts_shapelet_classify(model jsonb, series float8[])
RETURNS text
AS 'MODULE_PATHNAME', 'ts_shapelet_classify'
LANGUAGE C IMMUTABLE PARALLEL SAFE CALLED ON NULL INPUT;

COMMENT ON FUNCTION ts_shapelet_classify(jsonb, float8[]) IS
'The label that a ts_shapelet_tree model predicts for series (the model is parsed once per query while it stays the same).';

CREATE FUNCTION ts_shapelet_classify(model jsonb, series_sql text)
RETURNS TABLE (row_number bigint, id text, label text)
AS 'MODULE_PATHNAME', 'ts_shapelet_classify_query'
LANGUAGE C VOLATILE PARALLEL UNSAFE CALLED ON NULL INPUT ROWS 100;

COMMENT ON FUNCTION ts_shapelet_classify(jsonb, text) IS
'Batch prediction: series_sql returns (series float8[]) or (id, series float8[]); one row per input row (1-based row_number in the query''s order, id as text, predicted label), classified on all CPU threads.';
