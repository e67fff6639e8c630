-- ---------------------------------------------------------------------------
-- Matrix profile and discords
-- ---------------------------------------------------------------------------

CREATE FUNCTION ts_matrix_profile(series float8[], m int, exclusion_zone int DEFAULT NULL, normalized boolean DEFAULT true, gaps text DEFAULT 'skip')
RETURNS TABLE (pos bigint, distance float8, neighbor bigint)
AS 'MODULE_PATHNAME', 'ts_matrix_profile'
LANGUAGE C IMMUTABLE PARALLEL SAFE CALLED ON NULL INPUT ROWS 1000;

COMMENT ON FUNCTION ts_matrix_profile(float8[], int, int, boolean, text) IS
'Exact self-join matrix profile in float64: for each window of length m (1-based pos), the z-normalised Euclidean distance to its nearest neighbour and that neighbour''s position, among windows with |pos - neighbor| >= exclusion_zone (default ceil(m/4) + 1, which excludes what STUMPY''s excl_zone = ceil(m/4) excludes). Constant windows follow STUMPY: two constant windows are at 0, a constant and a non-constant one at sqrt(m). NULL distance and neighbour when no window qualifies. With normalized => false, the Euclidean distance of the raw values instead (STUMPY''s aamp): for data whose level matters; constant windows are then ordinary windows. gaps: ''skip'' (the default): a window holding a NULL, NaN or infinite value has NULL distance and neighbour and is no one''s neighbour; ''error'' rejects such values.';

CREATE FUNCTION ts_matrix_profile(series_sql text, m int, exclusion_zone int DEFAULT NULL, normalized boolean DEFAULT true, gaps text DEFAULT 'skip')
RETURNS TABLE (pos bigint, distance float8, neighbor bigint)
AS 'MODULE_PATHNAME', 'ts_matrix_profile_query'
LANGUAGE C VOLATILE PARALLEL UNSAFE CALLED ON NULL INPUT ROWS 1000;

COMMENT ON FUNCTION ts_matrix_profile(text, int, int, boolean, text) IS
'ts_matrix_profile over the series that series_sql returns (one numeric column, in the query''s order).';

CREATE FUNCTION ts_matrix_profile_arrays(series float8[], m int, exclusion_zone int DEFAULT NULL, normalized boolean DEFAULT true, gaps text DEFAULT 'skip')
RETURNS TABLE (distance float8[], neighbor bigint[])
AS 'MODULE_PATHNAME', 'ts_matrix_profile_arrays'
LANGUAGE C IMMUTABLE PARALLEL SAFE CALLED ON NULL INPUT ROWS 1;

COMMENT ON FUNCTION ts_matrix_profile_arrays(float8[], int, int, boolean, text) IS
'ts_matrix_profile as one row of two arrays, element i for the window at position i (as STUMPY''s P and I, 1-based): distance[i] and neighbor[i] are NULL when no window qualifies. Faster than the row form when the whole profile is kept or processed as a whole; up to about 67 million windows (1 GB). gaps: as in ts_matrix_profile.';

CREATE FUNCTION ts_matrix_profile_arrays(series_sql text, m int, exclusion_zone int DEFAULT NULL, normalized boolean DEFAULT true, gaps text DEFAULT 'skip')
RETURNS TABLE (distance float8[], neighbor bigint[])
AS 'MODULE_PATHNAME', 'ts_matrix_profile_arrays_query'
LANGUAGE C VOLATILE PARALLEL UNSAFE CALLED ON NULL INPUT ROWS 1;

COMMENT ON FUNCTION ts_matrix_profile_arrays(text, int, int, boolean, text) IS
'ts_matrix_profile_arrays over the series that series_sql returns (one numeric column, in the query''s order).';

CREATE FUNCTION ts_discords(series float8[], m int, k int DEFAULT 1, min_distance float8 DEFAULT NULL,
                            exclusion_zone int DEFAULT NULL, method text DEFAULT 'auto', normalized boolean DEFAULT true, gaps text DEFAULT 'skip')
RETURNS TABLE (rank int, pos bigint, distance float8, neighbor bigint)
AS 'MODULE_PATHNAME', 'ts_discords'
LANGUAGE C IMMUTABLE PARALLEL SAFE CALLED ON NULL INPUT ROWS 10;

COMMENT ON FUNCTION ts_discords(float8[], int, int, float8, int, text, boolean, text) IS
'Exact discords of length m: windows whose nearest non-self match (|i - j| >= exclusion_zone, default m) is farthest, by z-normalised Euclidean distance. Without min_distance: the top k, each not overlapping (|i - j| < m) one ranked before it. With min_distance: every range discord (nearest-neighbour distance >= min_distance), ranked, at most k (k => NULL for all). method: pd3 (GPU parallel DRAG), matrix_profile, or auto. With normalized => false, by the Euclidean distance of the raw values (min_distance in the data''s units; method auto or matrix_profile). gaps: ''skip'' (the default): windows holding a NULL, NaN or infinite value are neither discords nor neighbours (method pd3 then runs as matrix_profile); ''error'' rejects such values.';

CREATE FUNCTION ts_discords(series_sql text, m int, k int DEFAULT 1, min_distance float8 DEFAULT NULL,
                            exclusion_zone int DEFAULT NULL, method text DEFAULT 'auto', normalized boolean DEFAULT true, gaps text DEFAULT 'skip')
RETURNS TABLE (rank int, pos bigint, distance float8, neighbor bigint)
AS 'MODULE_PATHNAME', 'ts_discords_query'
LANGUAGE C VOLATILE PARALLEL UNSAFE CALLED ON NULL INPUT ROWS 10;

COMMENT ON FUNCTION ts_discords(text, int, int, float8, int, text, boolean, text) IS
'ts_discords over the series that series_sql returns (one numeric column, in the query''s order).';
