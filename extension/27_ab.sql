-- ---------------------------------------------------------------------------
-- Two series: the AB-join and what follows from it
-- ---------------------------------------------------------------------------

CREATE FUNCTION ts_matrix_profile_ab(a float8[], b float8[], m int, exclusion_zone int DEFAULT NULL,
    normalized boolean DEFAULT true, gaps text DEFAULT 'skip')
RETURNS TABLE (pos bigint, distance float8, neighbor bigint)
AS 'MODULE_PATHNAME', 'ts_matrix_profile_ab'
LANGUAGE C IMMUTABLE PARALLEL SAFE CALLED ON NULL INPUT ROWS 1000;

COMMENT ON FUNCTION ts_matrix_profile_ab(float8[], float8[], int, int, boolean, text) IS
'Exact matrix profile of series a against series b (AB-join, STUMPY''s stump(T_A, m, T_B, ignore_trivial => False)) in float64: for each window of a of length m (1-based pos in a), the z-normalised Euclidean distance to its nearest window of b and that window''s position in b (neighbor). No exclusion zone unless exclusion_zone is given: then only windows with |pos - neighbor| >= exclusion_zone qualify (a and b parts of one series, positions aligned); NULL distance and neighbour when none does. Constant windows follow STUMPY. With normalized => false, by the Euclidean distance of the raw values (STUMPY''s aamp). gaps: ''skip'' (the default): a window of a holding a NULL, NaN or infinite value has NULL distance and neighbour, a window of b holding one is no window''s neighbour; ''error'' rejects such values.';

CREATE FUNCTION ts_matrix_profile_ab(a_sql text, b_sql text, m int, exclusion_zone int DEFAULT NULL,
    normalized boolean DEFAULT true, gaps text DEFAULT 'skip')
RETURNS TABLE (pos bigint, distance float8, neighbor bigint)
AS 'MODULE_PATHNAME', 'ts_matrix_profile_ab_query'
LANGUAGE C VOLATILE PARALLEL UNSAFE CALLED ON NULL INPUT ROWS 1000;

COMMENT ON FUNCTION ts_matrix_profile_ab(text, text, int, int, boolean, text) IS
'ts_matrix_profile_ab over the series that a_sql and b_sql return (one numeric column each, in the query''s order).';

CREATE FUNCTION ts_discords_ab(a float8[], b float8[], m int, k int DEFAULT 1, min_distance float8 DEFAULT NULL,
                               exclusion_zone int DEFAULT NULL,
    normalized boolean DEFAULT true, gaps text DEFAULT 'skip')
RETURNS TABLE (rank int, pos bigint, distance float8, neighbor bigint)
AS 'MODULE_PATHNAME', 'ts_discords_ab'
LANGUAGE C IMMUTABLE PARALLEL SAFE CALLED ON NULL INPUT ROWS 10;

COMMENT ON FUNCTION ts_discords_ab(float8[], float8[], int, int, float8, int, boolean, text) IS
'Discords of a relative to b: the windows of a (pos) least like any window of b, by their distance in ts_matrix_profile_ab (neighbor: the nearest window of b). Without min_distance: the top k, each not overlapping (|i - j| < m) one ranked before it. With min_distance: every window of a at that distance or more, ranked, at most k (k => NULL for all). Ties: the smaller position first. normalized and gaps: as in ts_matrix_profile_ab (min_distance in the data''s units with normalized => false; a window of a holding a gap is never a discord).';

CREATE FUNCTION ts_discords_ab(a_sql text, b_sql text, m int, k int DEFAULT 1, min_distance float8 DEFAULT NULL,
                               exclusion_zone int DEFAULT NULL,
    normalized boolean DEFAULT true, gaps text DEFAULT 'skip')
RETURNS TABLE (rank int, pos bigint, distance float8, neighbor bigint)
AS 'MODULE_PATHNAME', 'ts_discords_ab_query'
LANGUAGE C VOLATILE PARALLEL UNSAFE CALLED ON NULL INPUT ROWS 10;

COMMENT ON FUNCTION ts_discords_ab(text, text, int, int, float8, int, boolean, text) IS
'ts_discords_ab over the series that a_sql and b_sql return (one numeric column each, in the query''s order).';

CREATE FUNCTION ts_motifs_ab(a float8[], b float8[], m int, k int DEFAULT 1, exclusion_zone int DEFAULT NULL,
    normalized boolean DEFAULT true, gaps text DEFAULT 'skip')
RETURNS TABLE (rank int, pos_a bigint, pos_b bigint, distance float8)
AS 'MODULE_PATHNAME', 'ts_motifs_ab'
LANGUAGE C IMMUTABLE PARALLEL SAFE CALLED ON NULL INPUT ROWS 10;

COMMENT ON FUNCTION ts_motifs_ab(float8[], float8[], int, int, int, boolean, text) IS
'The closest pairs between a and b: windows of a (pos_a) with their nearest window of b (pos_b) from ts_matrix_profile_ab, by distance ascending (ties: the smaller pos_a), each window of a not overlapping (|i - j| < m) one ranked before it; at most k pairs. normalized and gaps: as in ts_matrix_profile_ab (a window holding a gap is in no pair).';

CREATE FUNCTION ts_motifs_ab(a_sql text, b_sql text, m int, k int DEFAULT 1, exclusion_zone int DEFAULT NULL,
    normalized boolean DEFAULT true, gaps text DEFAULT 'skip')
RETURNS TABLE (rank int, pos_a bigint, pos_b bigint, distance float8)
AS 'MODULE_PATHNAME', 'ts_motifs_ab_query'
LANGUAGE C VOLATILE PARALLEL UNSAFE CALLED ON NULL INPUT ROWS 10;

COMMENT ON FUNCTION ts_motifs_ab(text, text, int, int, int, boolean, text) IS
'ts_motifs_ab over the series that a_sql and b_sql return (one numeric column each, in the query''s order).';

-- the timed forms: a and b with their times (arrays: a_times, a, b_times, b;
-- queries of (time, value) rows: time_type, a_sql, b_sql), one time type for both

CREATE FUNCTION ts_matrix_profile_ab(a_times anyarray, a float8[], b_times anyarray, b float8[], m int,
                                     exclusion_zone int DEFAULT NULL,
    normalized boolean DEFAULT true, gaps text DEFAULT 'skip')
RETURNS TABLE (pos bigint, distance float8, neighbor bigint, start_time anyelement, neighbor_time anyelement)
AS 'MODULE_PATHNAME', 'ts_matrix_profile_ab_timed'
LANGUAGE C STABLE PARALLEL SAFE CALLED ON NULL INPUT ROWS 1000;

COMMENT ON FUNCTION ts_matrix_profile_ab(anyarray, float8[], anyarray, float8[], int, int, boolean, text) IS
'ts_matrix_profile_ab of series a and b with the times of a_times and b_times (one per value, strictly increasing, of one type): each row also carries the start time of its window of a and of its neighbour in b.';

CREATE FUNCTION ts_matrix_profile_ab(time_type anynonarray, a_sql text, b_sql text, m int, exclusion_zone int DEFAULT NULL,
    normalized boolean DEFAULT true, gaps text DEFAULT 'skip')
RETURNS TABLE (pos bigint, distance float8, neighbor bigint, start_time anynonarray, neighbor_time anynonarray)
AS 'MODULE_PATHNAME', 'ts_matrix_profile_ab_timed_query'
LANGUAGE C VOLATILE PARALLEL UNSAFE CALLED ON NULL INPUT ROWS 1000;

COMMENT ON FUNCTION ts_matrix_profile_ab(anynonarray, text, text, int, int, boolean, text) IS
'ts_matrix_profile_ab over the (time, value) rows that a_sql and b_sql return (ordered by time, of the type of time_type, e.g. NULL::timestamptz): each row also carries the start time of its window of a and of its neighbour in b.';

CREATE FUNCTION ts_discords_ab(a_times anyarray, a float8[], b_times anyarray, b float8[], m int, k int DEFAULT 1,
                               min_distance float8 DEFAULT NULL, exclusion_zone int DEFAULT NULL,
    normalized boolean DEFAULT true, gaps text DEFAULT 'skip')
RETURNS TABLE (rank int, pos bigint, distance float8, neighbor bigint, start_time anyelement, neighbor_time anyelement)
AS 'MODULE_PATHNAME', 'ts_discords_ab_timed'
LANGUAGE C STABLE PARALLEL SAFE CALLED ON NULL INPUT ROWS 10;

COMMENT ON FUNCTION ts_discords_ab(anyarray, float8[], anyarray, float8[], int, int, float8, int, boolean, text) IS
'ts_discords_ab of series a and b with the times of a_times and b_times: each discord also carries the start time of its window of a and of its nearest window of b.';

CREATE FUNCTION ts_discords_ab(time_type anynonarray, a_sql text, b_sql text, m int, k int DEFAULT 1,
                               min_distance float8 DEFAULT NULL, exclusion_zone int DEFAULT NULL,
    normalized boolean DEFAULT true, gaps text DEFAULT 'skip')
RETURNS TABLE (rank int, pos bigint, distance float8, neighbor bigint, start_time anynonarray, neighbor_time anynonarray)
AS 'MODULE_PATHNAME', 'ts_discords_ab_timed_query'
LANGUAGE C VOLATILE PARALLEL UNSAFE CALLED ON NULL INPUT ROWS 10;

COMMENT ON FUNCTION ts_discords_ab(anynonarray, text, text, int, int, float8, int, boolean, text) IS
'ts_discords_ab over the (time, value) rows that a_sql and b_sql return (ordered by time, of the type of time_type): each discord also carries the start time of its window of a and of its nearest window of b.';

CREATE FUNCTION ts_motifs_ab(a_times anyarray, a float8[], b_times anyarray, b float8[], m int, k int DEFAULT 1,
                             exclusion_zone int DEFAULT NULL,
    normalized boolean DEFAULT true, gaps text DEFAULT 'skip')
RETURNS TABLE (rank int, pos_a bigint, pos_b bigint, distance float8, time_a anyelement, time_b anyelement)
AS 'MODULE_PATHNAME', 'ts_motifs_ab_timed'
LANGUAGE C STABLE PARALLEL SAFE CALLED ON NULL INPUT ROWS 10;

COMMENT ON FUNCTION ts_motifs_ab(anyarray, float8[], anyarray, float8[], int, int, int, boolean, text) IS
'ts_motifs_ab of series a and b with the times of a_times and b_times: each pair also carries the start times of its window of a (time_a) and of b (time_b).';

CREATE FUNCTION ts_motifs_ab(time_type anynonarray, a_sql text, b_sql text, m int, k int DEFAULT 1,
                             exclusion_zone int DEFAULT NULL,
    normalized boolean DEFAULT true, gaps text DEFAULT 'skip')
RETURNS TABLE (rank int, pos_a bigint, pos_b bigint, distance float8, time_a anynonarray, time_b anynonarray)
AS 'MODULE_PATHNAME', 'ts_motifs_ab_timed_query'
LANGUAGE C VOLATILE PARALLEL UNSAFE CALLED ON NULL INPUT ROWS 10;

COMMENT ON FUNCTION ts_motifs_ab(anynonarray, text, text, int, int, int, boolean, text) IS
'ts_motifs_ab over the (time, value) rows that a_sql and b_sql return (ordered by time, of the type of time_type): each pair also carries the start times of its window of a (time_a) and of b (time_b).';
