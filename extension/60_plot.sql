-- ---------------------------------------------------------------------------
-- Pictures
-- ---------------------------------------------------------------------------

CREATE FUNCTION ts_plot(series float8[], marks jsonb DEFAULT NULL, m int DEFAULT NULL, profile float8[] DEFAULT NULL,
                        width int DEFAULT 1000, height int DEFAULT 320, title text DEFAULT NULL,
                        times anyarray DEFAULT NULL)
RETURNS text
AS 'MODULE_PATHNAME', 'ts_plot'
LANGUAGE C STABLE PARALLEL SAFE CALLED ON NULL INPUT;

COMMENT ON FUNCTION ts_plot(float8[], jsonb, int, float8[], int, int, text, anyarray) IS
'An SVG image (text) of series with marks: a jsonb object {"discords": [...], "motifs": [...], "matches": [...], "outliers": [...]} of the result rows of ts_discords, ts_motifs (pos_a and pos_b), ts_match and ts_outliers (e.g. jsonb_agg(d)), or of 1-based positions; windows of m values unless a row has a "length". profile (e.g. ts_matrix_profile_arrays(...).distance) is drawn beneath; times (one per value) label the x axis. Long series are drawn by the first, smallest, largest and last value of each pixel column.';

CREATE FUNCTION ts_plot(series_sql text, marks jsonb DEFAULT NULL, m int DEFAULT NULL, profile float8[] DEFAULT NULL,
                        width int DEFAULT 1000, height int DEFAULT 320, title text DEFAULT NULL)
RETURNS text
AS 'MODULE_PATHNAME', 'ts_plot_query'
LANGUAGE C VOLATILE PARALLEL UNSAFE CALLED ON NULL INPUT;

COMMENT ON FUNCTION ts_plot(text, jsonb, int, float8[], int, int, text) IS
'ts_plot of the series that series_sql returns: (value) rows, or (time, value) rows whose times (ordered, strictly increasing) label the x axis.';
