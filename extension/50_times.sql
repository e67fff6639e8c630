-- ---------------------------------------------------------------------------
-- Series with their times: the timed forms
-- ---------------------------------------------------------------------------
-- Each series function has two more forms that take the series with its
-- times and return, beside the positions, the times of what they report:
--   array form: times anyarray (timestamptz[], timestamp[], date[], bigint[] or
--     integer[], one per value, strictly increasing), then series float8[];
--   query form: time_type anynonarray (a value of the time column's type,
--     usually NULL::timestamptz), then series_sql returning (time, value) rows.
-- Their other arguments are those of the plain forms.

CREATE FUNCTION ts_matrix_profile(times anyarray, series float8[], m int, exclusion_zone int DEFAULT NULL, normalized boolean DEFAULT true, gaps text DEFAULT 'skip')
RETURNS TABLE (pos bigint, distance float8, neighbor bigint, start_time anyelement, neighbor_time anyelement)
AS 'MODULE_PATHNAME', 'ts_matrix_profile_timed'
LANGUAGE C STABLE PARALLEL SAFE CALLED ON NULL INPUT ROWS 1000;

COMMENT ON FUNCTION ts_matrix_profile(anyarray, float8[], int, int, boolean, text) IS
'ts_matrix_profile of series whose values have the times of times (one per value, strictly increasing; timestamptz, timestamp, date, bigint or integer): each row also carries the start time of its window and of its neighbour.';

CREATE FUNCTION ts_matrix_profile(time_type anynonarray, series_sql text, m int, exclusion_zone int DEFAULT NULL, normalized boolean DEFAULT true, gaps text DEFAULT 'skip')
RETURNS TABLE (pos bigint, distance float8, neighbor bigint, start_time anynonarray, neighbor_time anynonarray)
AS 'MODULE_PATHNAME', 'ts_matrix_profile_timed_query'
LANGUAGE C VOLATILE PARALLEL UNSAFE CALLED ON NULL INPUT ROWS 1000;

COMMENT ON FUNCTION ts_matrix_profile(anynonarray, text, int, int, boolean, text) IS
'ts_matrix_profile over the (time, value) rows that series_sql returns (ordered by time, times strictly increasing, of the type of time_type, e.g. NULL::timestamptz): each row also carries the start time of its window and of its neighbour.';

CREATE FUNCTION ts_matrix_profile_arrays(times anyarray, series float8[], m int, exclusion_zone int DEFAULT NULL, normalized boolean DEFAULT true, gaps text DEFAULT 'skip')
RETURNS TABLE (distance float8[], neighbor bigint[], start_time anyarray, neighbor_time anyarray)
AS 'MODULE_PATHNAME', 'ts_matrix_profile_arrays_timed'
LANGUAGE C STABLE PARALLEL SAFE CALLED ON NULL INPUT ROWS 1;

COMMENT ON FUNCTION ts_matrix_profile_arrays(anyarray, float8[], int, int, boolean, text) IS
'ts_matrix_profile_arrays of series with the times of times, and two more arrays: the start time of window i and of its neighbour (NULL where none).';

CREATE FUNCTION ts_matrix_profile_arrays(time_type anynonarray, series_sql text, m int, exclusion_zone int DEFAULT NULL, normalized boolean DEFAULT true, gaps text DEFAULT 'skip')
RETURNS TABLE (distance float8[], neighbor bigint[], start_time anyarray, neighbor_time anyarray)
AS 'MODULE_PATHNAME', 'ts_matrix_profile_arrays_timed_query'
LANGUAGE C VOLATILE PARALLEL UNSAFE CALLED ON NULL INPUT ROWS 1;

COMMENT ON FUNCTION ts_matrix_profile_arrays(anynonarray, text, int, int, boolean, text) IS
'ts_matrix_profile_arrays over the (time, value) rows that series_sql returns, and two more arrays: the start time of window i and of its neighbour (NULL where none).';

CREATE FUNCTION ts_discords(times anyarray, series float8[], m int, k int DEFAULT 1, min_distance float8 DEFAULT NULL,
                            exclusion_zone int DEFAULT NULL, method text DEFAULT 'auto', normalized boolean DEFAULT true, gaps text DEFAULT 'skip')
RETURNS TABLE (rank int, pos bigint, distance float8, neighbor bigint, start_time anyelement, neighbor_time anyelement)
AS 'MODULE_PATHNAME', 'ts_discords_timed'
LANGUAGE C STABLE PARALLEL SAFE CALLED ON NULL INPUT ROWS 10;

COMMENT ON FUNCTION ts_discords(anyarray, float8[], int, int, float8, int, text, boolean, text) IS
'ts_discords of series whose values have the times of times (one per value, strictly increasing): each discord also carries the start time of its window and of its nearest neighbour.';

CREATE FUNCTION ts_discords(time_type anynonarray, series_sql text, m int, k int DEFAULT 1, min_distance float8 DEFAULT NULL,
                            exclusion_zone int DEFAULT NULL, method text DEFAULT 'auto', normalized boolean DEFAULT true, gaps text DEFAULT 'skip')
RETURNS TABLE (rank int, pos bigint, distance float8, neighbor bigint, start_time anynonarray, neighbor_time anynonarray)
AS 'MODULE_PATHNAME', 'ts_discords_timed_query'
LANGUAGE C VOLATILE PARALLEL UNSAFE CALLED ON NULL INPUT ROWS 10;

COMMENT ON FUNCTION ts_discords(anynonarray, text, int, int, float8, int, text, boolean, text) IS
'ts_discords over the (time, value) rows that series_sql returns (ordered by time, of the type of time_type, e.g. NULL::timestamptz): each discord also carries the start time of its window and of its nearest neighbour.';

CREATE FUNCTION ts_motifs(times anyarray, series float8[], m int, k int DEFAULT 1, exclusion_zone int DEFAULT NULL,
                          method text DEFAULT 'auto', n_references int DEFAULT 10, normalized boolean DEFAULT true, gaps text DEFAULT 'skip')
RETURNS TABLE (rank int, pos_a bigint, pos_b bigint, distance float8, time_a anyelement, time_b anyelement)
AS 'MODULE_PATHNAME', 'ts_motifs_timed'
LANGUAGE C STABLE PARALLEL SAFE CALLED ON NULL INPUT ROWS 10;

COMMENT ON FUNCTION ts_motifs(anyarray, float8[], int, int, int, text, int, boolean, text) IS
'ts_motifs of series whose values have the times of times (one per value, strictly increasing): each pair also carries the start times of its two windows.';

CREATE FUNCTION ts_motifs(time_type anynonarray, series_sql text, m int, k int DEFAULT 1, exclusion_zone int DEFAULT NULL,
                          method text DEFAULT 'auto', n_references int DEFAULT 10, normalized boolean DEFAULT true, gaps text DEFAULT 'skip')
RETURNS TABLE (rank int, pos_a bigint, pos_b bigint, distance float8, time_a anynonarray, time_b anynonarray)
AS 'MODULE_PATHNAME', 'ts_motifs_timed_query'
LANGUAGE C VOLATILE PARALLEL UNSAFE CALLED ON NULL INPUT ROWS 10;

COMMENT ON FUNCTION ts_motifs(anynonarray, text, int, int, int, text, int, boolean, text) IS
'ts_motifs over the (time, value) rows that series_sql returns (ordered by time, of the type of time_type): each pair also carries the start times of its two windows.';

CREATE FUNCTION ts_match(times anyarray, series float8[], pattern float8[], max_distance float8 DEFAULT NULL,
                         k int DEFAULT NULL, exclusion_zone int DEFAULT NULL, normalized boolean DEFAULT true, gaps text DEFAULT 'skip')
RETURNS TABLE (rank int, pos bigint, distance float8, start_time anyelement)
AS 'MODULE_PATHNAME', 'ts_match_timed'
LANGUAGE C STABLE PARALLEL SAFE CALLED ON NULL INPUT ROWS 10;

COMMENT ON FUNCTION ts_match(anyarray, float8[], float8[], float8, int, int, boolean, text) IS
'ts_match in series whose values have the times of times (one per value, strictly increasing): each match also carries the start time of its window.';

CREATE FUNCTION ts_match(time_type anynonarray, series_sql text, pattern float8[], max_distance float8 DEFAULT NULL,
                         k int DEFAULT NULL, exclusion_zone int DEFAULT NULL, normalized boolean DEFAULT true, gaps text DEFAULT 'skip')
RETURNS TABLE (rank int, pos bigint, distance float8, start_time anynonarray)
AS 'MODULE_PATHNAME', 'ts_match_timed_query'
LANGUAGE C VOLATILE PARALLEL UNSAFE CALLED ON NULL INPUT ROWS 10;

COMMENT ON FUNCTION ts_match(anynonarray, text, float8[], float8, int, int, boolean, text) IS
'ts_match in the (time, value) rows that series_sql returns (ordered by time, of the type of time_type): each match also carries the start time of its window.';

CREATE FUNCTION ts_outliers(times anyarray, series float8[], k_sigma float8 DEFAULT 3.0, method text DEFAULT 'sigma', gaps text DEFAULT 'skip')
RETURNS TABLE (pos bigint, value float8, zscore float8, "time" anyelement)
AS 'MODULE_PATHNAME', 'ts_outliers_timed'
LANGUAGE C STABLE PARALLEL SAFE CALLED ON NULL INPUT ROWS 10;

COMMENT ON FUNCTION ts_outliers(anyarray, float8[], float8, text, text) IS
'ts_outliers of series whose values have the times of times (one per value, strictly increasing): each outlier also carries its time.';

CREATE FUNCTION ts_outliers(time_type anynonarray, series_sql text, k_sigma float8 DEFAULT 3.0, method text DEFAULT 'sigma', gaps text DEFAULT 'skip')
RETURNS TABLE (pos bigint, value float8, zscore float8, "time" anynonarray)
AS 'MODULE_PATHNAME', 'ts_outliers_timed_query'
LANGUAGE C VOLATILE PARALLEL UNSAFE CALLED ON NULL INPUT ROWS 10;

COMMENT ON FUNCTION ts_outliers(anynonarray, text, float8, text, text) IS
'ts_outliers over the (time, value) rows that series_sql returns (ordered by time, of the type of time_type): each outlier also carries its time.';

CREATE FUNCTION ts_shapelets(time_type anynonarray, training_sql text, min_length int, max_length int, step int DEFAULT 1,
                             k int DEFAULT 1, gaps text DEFAULT 'skip')
RETURNS TABLE (rank int, source_row bigint, start int, length int, threshold float8, info_gain float8,
               gap float8, shapelet float8[], start_time anynonarray)
AS 'MODULE_PATHNAME', 'ts_shapelets_timed'
LANGUAGE C VOLATILE PARALLEL UNSAFE CALLED ON NULL INPUT ROWS 10;

COMMENT ON FUNCTION ts_shapelets(anynonarray, text, int, int, int, int, text) IS
'ts_shapelets over a training set whose series come with their times: training_sql returns (label, times, series float8[]) rows, times an array of the type of time_type (e.g. NULL::timestamptz), one per value, strictly increasing. Each shapelet also carries the time it starts at in its source series. gaps: as in ts_shapelets.';
