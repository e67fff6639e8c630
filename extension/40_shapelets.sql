-- ---------------------------------------------------------------------------
-- Shapelets
-- ---------------------------------------------------------------------------

CREATE FUNCTION ts_shapelets(training_sql text, min_length int, max_length int, step int DEFAULT 1, k int DEFAULT 1,
                             gaps text DEFAULT 'skip')
RETURNS TABLE (rank int, source_row bigint, start int, length int, threshold float8, info_gain float8,
               gap float8, shapelet float8[])
AS 'MODULE_PATHNAME', 'ts_shapelets'
LANGUAGE C VOLATILE PARALLEL UNSAFE CALLED ON NULL INPUT ROWS 10;

COMMENT ON FUNCTION ts_shapelets(text, int, int, int, int, text) IS
'The k best shapelets of a labelled training set: training_sql returns (label, series float8[]) rows (labels of any type, compared as text). Every subsequence of every series with length min_length..max_length (by step) is a candidate; its quality is the information gain (bits) of the best split of the series by their distance to it (Definition 1: the minimum z-normalised, length-normalised Euclidean distance, in [0, 2]); ties by separation gap, then shorter length, smaller source_row, smaller start. source_row and start are 1-based; threshold is the split point. gaps: ''skip'' (the default): NULL, NaN and infinite values of the series are gaps: a window holding one is no candidate, and the distance of a shapelet to a series is the minimum over its windows without one (2, the largest distance, when it has none: the far side of every split); ''error'' rejects such values.';

CREATE FUNCTION ts_shapelet_distance(shapelet float8[], series float8[], gaps text DEFAULT 'skip')
RETURNS float8
AS 'MODULE_PATHNAME', 'ts_shapelet_distance'
LANGUAGE C IMMUTABLE PARALLEL SAFE CALLED ON NULL INPUT;

COMMENT ON FUNCTION ts_shapelet_distance(float8[], float8[], text) IS
'Definition 1: the minimum over positions of the z-normalised, length-normalised Euclidean distance sqrt(sum (z_a - z_b)^2 / L) = sqrt(2 (1 - rho)) between shapelet and the windows of series; in [0, 2]. A flat window against a non-flat one counts as distance 1, two flat ones as 0. gaps: ''skip'' (the default): the windows of series holding a NULL, NaN or infinite value are left out, and the distance is NULL when every window holds one; ''error'' rejects such values. A shapelet with one is an error either way.';

CREATE FUNCTION ts_shapelet_tree(training_sql text, min_length int, max_length int, step int DEFAULT 1,
                                 max_depth int DEFAULT NULL, logical boolean DEFAULT false, gaps text DEFAULT 'skip')
RETURNS jsonb
AS 'MODULE_PATHNAME', 'ts_shapelet_tree'
LANGUAGE C VOLATILE PARALLEL UNSAFE CALLED ON NULL INPUT;

COMMENT ON FUNCTION ts_shapelet_tree(text, int, int, int, int, boolean, text) IS
'A shapelet decision tree (Algorithm 2 of the GPU shapelet paper) over the training set of training_sql (label, series float8[]), or (label, times, series float8[]) with times one per value, strictly increasing, of type timestamptz, timestamp, date, bigint or integer, whose shapelets then carry the start_time where they start: each split holds the best shapelet of its subset and a distance threshold (near side: distance <= threshold goes left); leaves hold the majority label and the class counts. With logical, a split may hold two shapelets combined by AND (max of the distances) or OR (min). max_depth NULL grows until the leaves are pure or no split gains. Returns the model as jsonb for ts_shapelet_classify. gaps: as in ts_shapelets.';

CREATE FUNCTION ts_shapelet_classify(model jsonb, series float8[], gaps text DEFAULT 'skip')
RETURNS text
AS 'MODULE_PATHNAME', 'ts_shapelet_classify'
LANGUAGE C IMMUTABLE PARALLEL SAFE CALLED ON NULL INPUT;

COMMENT ON FUNCTION ts_shapelet_classify(jsonb, float8[], text) IS
'The label that a ts_shapelet_tree model predicts for series (the model is parsed once per query while it stays the same). gaps: ''skip'' (the default): the windows of series holding a NULL, NaN or infinite value are left out, and a series with no window of a shapelet''s length free of them is at distance 2 from it (the far side of its split); ''error'' rejects such values.';

CREATE FUNCTION ts_shapelet_classify(model jsonb, series_sql text, gaps text DEFAULT 'skip')
RETURNS TABLE (row_number bigint, id text, label text)
AS 'MODULE_PATHNAME', 'ts_shapelet_classify_query'
LANGUAGE C VOLATILE PARALLEL UNSAFE CALLED ON NULL INPUT ROWS 100;

COMMENT ON FUNCTION ts_shapelet_classify(jsonb, text, text) IS
'Batch prediction: series_sql returns (series float8[]) or (id, series float8[]); one row per input row (1-based row_number in the query''s order, id as text, predicted label), classified on all CPU threads. gaps: as in the scalar form.';
