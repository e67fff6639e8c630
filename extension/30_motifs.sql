-- ---------------------------------------------------------------------------
-- Motifs and similarity search
-- ---------------------------------------------------------------------------

CREATE FUNCTION ts_motifs(series float8[], m int, k int DEFAULT 1, exclusion_zone int DEFAULT NULL,
                          method text DEFAULT 'auto', n_references int DEFAULT 10, normalized boolean DEFAULT true, gaps text DEFAULT 'skip')
RETURNS TABLE (rank int, pos_a bigint, pos_b bigint, distance float8)
AS 'MODULE_PATHNAME', 'ts_motifs'
LANGUAGE C IMMUTABLE PARALLEL SAFE CALLED ON NULL INPUT ROWS 10;

COMMENT ON FUNCTION ts_motifs(float8[], int, int, int, text, int, boolean, text) IS
'Exact top-k motif pairs of length m by z-normalised Euclidean distance: pos_a < pos_b, pos_b - pos_a >= exclusion_zone (default m); a later pair shares no member with, and does not overlap, an earlier one. method: mk (the MK algorithm with n_references reference windows), matrix_profile, or auto. Ties: smaller distance, then smaller pos_a, then smaller pos_b. With normalized => false, by the Euclidean distance of the raw values (method auto or matrix_profile). gaps: ''skip'' (the default): windows holding a NULL, NaN or infinite value belong to no pair (method mk then runs as matrix_profile); ''error'' rejects such values.';

CREATE FUNCTION ts_motifs(series_sql text, m int, k int DEFAULT 1, exclusion_zone int DEFAULT NULL,
                          method text DEFAULT 'auto', n_references int DEFAULT 10, normalized boolean DEFAULT true, gaps text DEFAULT 'skip')
RETURNS TABLE (rank int, pos_a bigint, pos_b bigint, distance float8)
AS 'MODULE_PATHNAME', 'ts_motifs_query'
LANGUAGE C VOLATILE PARALLEL UNSAFE CALLED ON NULL INPUT ROWS 10;

COMMENT ON FUNCTION ts_motifs(text, int, int, int, text, int, boolean, text) IS
'ts_motifs over the series that series_sql returns (one numeric column, in the query''s order).';

CREATE FUNCTION ts_match(series float8[], pattern float8[], max_distance float8 DEFAULT NULL, k int DEFAULT NULL,
                         exclusion_zone int DEFAULT NULL, normalized boolean DEFAULT true, gaps text DEFAULT 'skip')
RETURNS TABLE (rank int, pos bigint, distance float8)
AS 'MODULE_PATHNAME', 'ts_match'
LANGUAGE C IMMUTABLE PARALLEL SAFE CALLED ON NULL INPUT ROWS 10;

COMMENT ON FUNCTION ts_match(float8[], float8[], float8, int, int, boolean, text) IS
'Every occurrence of pattern in series by z-normalised Euclidean distance, best first: greedy by distance, skipping windows within exclusion_zone (default the pattern length) of one already returned; at most k (NULL: all), none farther than max_distance (NULL: no limit). ts_match(series, series[p:p+m-1]) gives the motif set of the window at p. With normalized => false, by the Euclidean distance of the raw values (max_distance in the data''s units). gaps: ''skip'' (the default): windows of series holding a NULL, NaN or infinite value are never matches; ''error'' rejects such values. A pattern with one is an error either way.';

CREATE FUNCTION ts_match(series_sql text, pattern float8[], max_distance float8 DEFAULT NULL, k int DEFAULT NULL,
                         exclusion_zone int DEFAULT NULL, normalized boolean DEFAULT true, gaps text DEFAULT 'skip')
RETURNS TABLE (rank int, pos bigint, distance float8)
AS 'MODULE_PATHNAME', 'ts_match_query'
LANGUAGE C VOLATILE PARALLEL UNSAFE CALLED ON NULL INPUT ROWS 10;

COMMENT ON FUNCTION ts_match(text, float8[], float8, int, int, boolean, text) IS
'ts_match over the series that series_sql returns (one numeric column, in the query''s order).';
