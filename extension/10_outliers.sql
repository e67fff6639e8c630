-- ---------------------------------------------------------------------------
-- Outliers
-- ---------------------------------------------------------------------------

CREATE FUNCTION ts_outliers(series float8[], k_sigma float8 DEFAULT 3.0, method text DEFAULT 'sigma', gaps text DEFAULT 'skip')
RETURNS TABLE (pos bigint, value float8, zscore float8)
AS 'MODULE_PATHNAME', 'ts_outliers'
LANGUAGE C IMMUTABLE PARALLEL SAFE CALLED ON NULL INPUT ROWS 10;

COMMENT ON FUNCTION ts_outliers(float8[], float8, text, text) IS
'Values beyond k_sigma: method ''sigma'' flags |x - mean| > k_sigma * std (population std, two-pass); ''mad'' flags |0.6745 (x - median) / MAD| > k_sigma (if MAD = 0: |x - median| / (1.253314 MeanAD) > k_sigma; if that is 0 too, none). Returns 1-based positions in series order, the value and its (modified) z-score. gaps: ''skip'' (the default) leaves NULL, NaN and infinite values out (no outliers, not in the mean, spread or median; positions still count them), ''error'' rejects them.';

CREATE FUNCTION ts_outliers(series_sql text, k_sigma float8 DEFAULT 3.0, method text DEFAULT 'sigma', gaps text DEFAULT 'skip')
RETURNS TABLE (pos bigint, value float8, zscore float8)
AS 'MODULE_PATHNAME', 'ts_outliers_query'
LANGUAGE C VOLATILE PARALLEL UNSAFE CALLED ON NULL INPUT ROWS 10;

COMMENT ON FUNCTION ts_outliers(text, float8, text, text) IS
'ts_outliers over the series that series_sql returns (one numeric column; its rows in the query''s order are the series, positions 1-based in that order). The query runs with the caller''s privileges.';
