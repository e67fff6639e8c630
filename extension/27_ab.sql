-- ---------------------------------------------------------------------------
-- Two series: the AB-join and what follows from it
-- ---------------------------------------------------------------------------

CREATE FUNCTION ts_matrix_profile_ab(a float8[], b float8[], m int, exclusion_zone int DEFAULT NULL)
RETURNS TABLE (pos bigint, distance float8, neighbor bigint)
AS 'MODULE_PATHNAME', 'ts_matrix_profile_ab'
LANGUAGE C IMMUTABLE PARALLEL SAFE CALLED ON NULL INPUT ROWS 1000;

COMMENT ON FUNCTION ts_matrix_profile_ab(float8[], float8[], int, int) IS
'Exact matrix profile of series a against series b (AB-join, STUMPY''s stump(T_A, m, T_B, ignore_trivial => False)) in float64: for each window of a of length m (1-based pos in a), the z-normalised Euclidean distance to its nearest window of b and that window''s position in b (neighbor). No exclusion zone unless exclusion_zone is given: then only windows with |pos - neighbor| >= exclusion_zone qualify (a and b parts of one series, positions aligned); NULL distance and neighbour when none does. Constant windows follow STUMPY.';

CREATE FUNCTION ts_matrix_profile_ab(a_sql text, b_sql text, m int, exclusion_zone int DEFAULT NULL)
RETURNS TABLE (pos bigint, distance float8, neighbor bigint)
AS 'MODULE_PATHNAME', 'ts_matrix_profile_ab_query'
LANGUAGE C VOLATILE PARALLEL UNSAFE CALLED ON NULL INPUT ROWS 1000;

COMMENT ON FUNCTION ts_matrix_profile_ab(text, text, int, int) IS
'ts_matrix_profile_ab over the series that a_sql and b_sql return (one numeric column each, in the query''s order).';

CREATE FUNCTION ts_discords_ab(a float8[], b float8[], m int, k int DEFAULT 1, min_distance float8 DEFAULT NULL,
                               exclusion_zone int DEFAULT NULL)
RETURNS TABLE (rank int, pos bigint, distance float8, neighbor bigint)
AS 'MODULE_PATHNAME', 'ts_discords_ab'
LANGUAGE C IMMUTABLE PARALLEL SAFE CALLED ON NULL INPUT ROWS 10;

COMMENT ON FUNCTION ts_discords_ab(float8[], float8[], int, int, float8, int) IS
'Discords of a relative to b: the windows of a (pos) least like any window of b, by their distance in ts_matrix_profile_ab (neighbor: the nearest window of b). Without min_distance: the top k, each not overlapping (|i - j| < m) one ranked before it. With min_distance: every window of a at that distance or more, ranked, at most k (k => NULL for all). Ties: the smaller position first.';

CREATE FUNCTION ts_discords_ab(a_sql text, b_sql text, m int, k int DEFAULT 1, min_distance float8 DEFAULT NULL,
                               exclusion_zone int DEFAULT NULL)
RETURNS TABLE (rank int, pos bigint, distance float8, neighbor bigint)
AS 'MODULE_PATHNAME', 'ts_discords_ab_query'
LANGUAGE C VOLATILE PARALLEL UNSAFE CALLED ON NULL INPUT ROWS 10;

COMMENT ON FUNCTION ts_discords_ab(text, text, int, int, float8, int) IS
'ts_discords_ab over the series that a_sql and b_sql return (one numeric column each, in the query''s order).';

CREATE FUNCTION ts_motifs_ab(a float8[], b float8[], m int, k int DEFAULT 1, exclusion_zone int DEFAULT NULL)
RETURNS TABLE (rank int, pos_a bigint, pos_b bigint, distance float8)
AS 'MODULE_PATHNAME', 'ts_motifs_ab'
LANGUAGE C IMMUTABLE PARALLEL SAFE CALLED ON NULL INPUT ROWS 10;

COMMENT ON FUNCTION ts_motifs_ab(float8[], float8[], int, int, int) IS
'The closest pairs between a and b: windows of a (pos_a) with their nearest window of b (pos_b) from ts_matrix_profile_ab, by distance ascending (ties: the smaller pos_a), each window of a not overlapping (|i - j| < m) one ranked before it; at most k pairs.';

CREATE FUNCTION ts_motifs_ab(a_sql text, b_sql text, m int, k int DEFAULT 1, exclusion_zone int DEFAULT NULL)
RETURNS TABLE (rank int, pos_a bigint, pos_b bigint, distance float8)
AS 'MODULE_PATHNAME', 'ts_motifs_ab_query'
LANGUAGE C VOLATILE PARALLEL UNSAFE CALLED ON NULL INPUT ROWS 10;

COMMENT ON FUNCTION ts_motifs_ab(text, text, int, int, int) IS
'ts_motifs_ab over the series that a_sql and b_sql return (one numeric column each, in the query''s order).';
