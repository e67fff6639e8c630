-- tsmine 0.1.0 -> 0.2.0, run by ALTER EXTENSION tsmine UPDATE.
\echo Use "ALTER EXTENSION tsmine UPDATE TO '0.2.0'" to load this file. \quit

-- Every change to the SQL surface (extension/*.sql) between the 0.1.0 release
-- and 0.2.0 goes here too: new functions (CREATE FUNCTION), changed markings
-- (ALTER FUNCTION ... STABLE / PARALLEL SAFE / ROWS), comments (COMMENT ON),
-- new defaults or result columns (CREATE OR REPLACE FUNCTION where the result
-- type is unchanged).  Never DROP a function of 0.1.0 that users' views,
-- indexes and stored models depend on (a changed signature: see the end of
-- this file).  test/pgtap/upgrade.sql fails until the catalogue of an
-- updated install equals that of a fresh 0.2.0 install.
--
-- 0.2.0 keeps 0.1.0's functions and markings (the series functions gain
-- parameters, normalized and gaps, and the shapelet functions gaps: see the
-- end of this file; ts_shapelet_tree's training query may carry times, which
-- its comment there says), and 0.2.0 adds:

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

-- Array forms are IMMUTABLE (were STABLE): their rows depend on the arguments
-- alone (the tsmine settings choose where they run, not what they return), and
-- Citus pushes IMMUTABLE table functions down to the workers in every query
-- shape (README: Function markings, tsmine on Citus).
ALTER FUNCTION ts_outliers(float8[], float8, text) IMMUTABLE;
ALTER FUNCTION ts_matrix_profile(float8[], int, int) IMMUTABLE;
ALTER FUNCTION ts_matrix_profile_arrays(float8[], int, int) IMMUTABLE;
ALTER FUNCTION ts_discords(float8[], int, int, float8, int, text) IMMUTABLE;
ALTER FUNCTION ts_motifs(float8[], int, int, int, text, int) IMMUTABLE;
ALTER FUNCTION ts_match(float8[], float8[], float8, int, int) IMMUTABLE;

-- ---------------------------------------------------------------------------
-- One series' matrix profile in tiles (computed apart, e.g. on Citus workers,
-- and merged), and its profile, discords and motifs
-- ---------------------------------------------------------------------------

CREATE FUNCTION ts_matrix_profile_tile(series float8[], m int, tile int, tiles int, exclusion_zone int DEFAULT NULL,
                                       normalized boolean DEFAULT true, gaps text DEFAULT 'skip')
RETURNS bigint[]
AS 'MODULE_PATHNAME', 'ts_matrix_profile_tile'
LANGUAGE C IMMUTABLE PARALLEL SAFE CALLED ON NULL INPUT;

COMMENT ON FUNCTION ts_matrix_profile_tile(float8[], int, int, int, int, boolean, text) IS
'Tile number tile (1 .. tiles) of the matrix profile of series: its share of the pairs of windows, cut where the profile''s recurrence restarts, as a partial profile (a bigint[] of tsmine''s layout: a header, the tiles it holds, the best candidate of every window). Merge every tile with ts_matrix_profile_merge, then ts_matrix_profile_from_tiles (or ts_discords_from_tiles, ts_motifs_from_tiles) gives what ts_matrix_profile(series, m, exclusion_zone, normalized) gives, bit for bit (tiles of raw-value and of z-normalised profiles do not merge).';

CREATE FUNCTION ts_matrix_profile_merge(a bigint[], b bigint[])
RETURNS bigint[]
AS 'MODULE_PATHNAME', 'ts_matrix_profile_merge'
LANGUAGE C IMMUTABLE PARALLEL SAFE STRICT;

COMMENT ON FUNCTION ts_matrix_profile_merge(bigint[], bigint[]) IS
'The partial matrix profile of the tiles of a and b (of one series, m, exclusion_zone and number of tiles): for every window the better candidate, ties to the smaller position. The aggregate ts_matrix_profile_merge(partial) merges any number.';

-- the aggregate's state: the partial profile's words in a bytea (Citus ships
-- a partial aggregate's state as the text of its type: hex for a bytea, far
-- cheaper than a bigint[]'s decimal text)
CREATE FUNCTION ts_matrix_profile_merge_state(state bytea, partial bigint[])
RETURNS bytea
AS 'MODULE_PATHNAME', 'ts_matrix_profile_merge_state'
LANGUAGE C IMMUTABLE PARALLEL SAFE CALLED ON NULL INPUT;

COMMENT ON FUNCTION ts_matrix_profile_merge_state(bytea, bigint[]) IS
'The transition function of the aggregate ts_matrix_profile_merge(partial): partial merged into the state (the aggregate''s own; an error elsewhere).';

CREATE FUNCTION ts_matrix_profile_merge_states(a bytea, b bytea)
RETURNS bytea
AS 'MODULE_PATHNAME', 'ts_matrix_profile_merge_states'
LANGUAGE C IMMUTABLE PARALLEL SAFE STRICT;

COMMENT ON FUNCTION ts_matrix_profile_merge_states(bytea, bytea) IS
'The combine function of the aggregate ts_matrix_profile_merge(partial): the states of two partial merges merged.';

CREATE FUNCTION ts_matrix_profile_merge_final(state bytea)
RETURNS bigint[]
AS 'MODULE_PATHNAME', 'ts_matrix_profile_merge_final'
LANGUAGE C IMMUTABLE PARALLEL SAFE STRICT;

COMMENT ON FUNCTION ts_matrix_profile_merge_final(bytea) IS
'The final function of the aggregate ts_matrix_profile_merge(partial): its state as the merged partial profile.';

CREATE AGGREGATE ts_matrix_profile_merge(partial bigint[]) (
  SFUNC = ts_matrix_profile_merge_state,
  STYPE = bytea,
  COMBINEFUNC = ts_matrix_profile_merge_states,
  FINALFUNC = ts_matrix_profile_merge_final,
  PARALLEL = SAFE
);

COMMENT ON AGGREGATE ts_matrix_profile_merge(bigint[]) IS
'Merges partial matrix profiles (ts_matrix_profile_tile) into one; in any order, on any node (Citus merges on the workers, then on the coordinator).';

CREATE FUNCTION ts_matrix_profile_from_tiles(series float8[], merged bigint[], gaps text DEFAULT 'skip')
RETURNS TABLE (pos bigint, distance float8, neighbor bigint)
AS 'MODULE_PATHNAME', 'ts_matrix_profile_from_tiles'
LANGUAGE C IMMUTABLE PARALLEL SAFE CALLED ON NULL INPUT ROWS 1000;

COMMENT ON FUNCTION ts_matrix_profile_from_tiles(float8[], bigint[], text) IS
'The matrix profile of series from the merge of all its tiles (ts_matrix_profile_merge of ts_matrix_profile_tile 1 .. tiles): the rows ts_matrix_profile(series, m, exclusion_zone, normalized) returns, with the tiles'' m, exclusion_zone and normalized. An error names missing tiles, or says the tiles are of another series.';

CREATE FUNCTION ts_discords_from_tiles(series float8[], merged bigint[], k int DEFAULT 1, min_distance float8 DEFAULT NULL, gaps text DEFAULT 'skip')
RETURNS TABLE (rank int, pos bigint, distance float8, neighbor bigint)
AS 'MODULE_PATHNAME', 'ts_discords_from_tiles'
LANGUAGE C IMMUTABLE PARALLEL SAFE CALLED ON NULL INPUT ROWS 10;

COMMENT ON FUNCTION ts_discords_from_tiles(float8[], bigint[], int, float8, text) IS
'The discords of series from its merged tiles: what ts_discords(series, m, k, min_distance, exclusion_zone, normalized => ...) returns, with the tiles'' m, exclusion_zone and normalized (give the tiles exclusion_zone => m for ts_discords'' default).';

CREATE FUNCTION ts_motifs_from_tiles(series float8[], merged bigint[], k int DEFAULT 1, gaps text DEFAULT 'skip')
RETURNS TABLE (rank int, pos_a bigint, pos_b bigint, distance float8)
AS 'MODULE_PATHNAME', 'ts_motifs_from_tiles'
LANGUAGE C IMMUTABLE PARALLEL SAFE CALLED ON NULL INPUT ROWS 10;

COMMENT ON FUNCTION ts_motifs_from_tiles(float8[], bigint[], int, text) IS
'The top-k motif pairs of series from its merged tiles: what ts_motifs(series, m, k, exclusion_zone, normalized => ...) returns, with the tiles'' m, exclusion_zone and normalized (give the tiles exclusion_zone => m for ts_motifs'' default).';

-- ts_gpu_slots(): the slots of every GPU and the backends holding them (issue 12).
CREATE FUNCTION ts_gpu_slots()
RETURNS TABLE (
    device_id int,              -- CUDA ordinal
    listed int,                 -- how many times tsmine.gpu_devices lists it (0: tsmine does not use it)
    slots int,                  -- tsmine.max_gpu_backends: the backends that may hold a context on it at once
    backends int,               -- backends holding one of its slots now, this one included
    held_slot int               -- the slot of it this backend holds, or NULL
)
AS 'MODULE_PATHNAME', 'ts_gpu_slots'
LANGUAGE C VOLATILE PARALLEL RESTRICTED;

COMMENT ON FUNCTION ts_gpu_slots() IS
'One row per visible GPU (none without one): how many times tsmine.gpu_devices lists it, its slots (tsmine.max_gpu_backends), how many backends hold one of them now, this one included, and the slot this backend holds. A new backend takes a slot of the least loaded listed GPU.';

-- ts_progress(): the calls running now, their fraction done and time left;
-- ts_estimate(): what a call would cost before it runs (issue 17).  The
-- array literals that the query forms take as arrays need no SQL change.

CREATE FUNCTION ts_progress()
RETURNS TABLE (
    pid int,                    -- the backend running the call (join pg_stat_activity on pid)
    function text,              -- the SQL function, e.g. 'ts_matrix_profile'
    method text,                -- the method it runs now ('matrix_profile', 'pd3', 'mk'), or NULL
    backend text,               -- 'gpu' or 'cpu'
    started timestamptz,        -- when the call's work began (its series read)
    seconds_running float8,
    fraction float8,            -- of the work done, 0 to 1; NULL where the work depends on the data
    seconds_left float8,        -- estimated from the rate so far; NULL while unknown
    done bigint,                -- units of work done (the method's own units) ...
    total bigint                -- ... of total; NULL where unknown
)
AS 'MODULE_PATHNAME', 'ts_progress'
LANGUAGE C VOLATILE PARALLEL RESTRICTED;

COMMENT ON FUNCTION ts_progress() IS
'One row per tsmine call running now in any session whose role the caller has the privileges of (every session with pg_read_all_stats): its pid (join pg_stat_activity), function, method, backend, start, the fraction of its work done and the estimated seconds left.';

CREATE FUNCTION ts_estimate(function text, n bigint, m int DEFAULT NULL, k int DEFAULT 1, method text DEFAULT 'auto',
                            backend text DEFAULT NULL, series_count bigint DEFAULT NULL, min_length int DEFAULT NULL,
                            step int DEFAULT 1)
RETURNS TABLE (
    function text,
    method text,                -- the method the call would run ('matrix_profile', 'pd3', 'mk', 'sigma', 'mad'), or NULL
    backend text,               -- 'gpu' or 'cpu': where the call would run
    seconds float8,             -- the work inside tsmine (reading a query and returning rows come on top)
    device_bytes bigint,        -- GPU memory the call would hold at its peak (0 on the CPU)
    host_bytes bigint           -- host memory it would allocate besides its input and result rows
)
AS 'MODULE_PATHNAME', 'ts_estimate'
LANGUAGE C STABLE PARALLEL RESTRICTED CALLED ON NULL INPUT ROWS 1;

COMMENT ON FUNCTION ts_estimate(text, bigint, int, int, text, text, bigint, int, int) IS
'What a call would cost before it runs: for function (ts_matrix_profile, ts_matrix_profile_arrays, ts_discords, ts_motifs, ts_match, ts_outliers, ts_shapelets, ts_shapelet_tree), a series of n values, window or pattern length m, k results and method, the backend and method the call would use (backend NULL: as tsmine.backend says), its estimated seconds and its device and host memory, from the rates the automatic choices use. Shapelets: n values in each of series_count training series, lengths min_length..m by step.';

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

-- normalized => false: raw-value distances (issue 11, item 4).  The parameter
-- changes the signatures of these series functions of 0.1.0, and a second
-- function with the old signature would make every call that leaves the new
-- parameter out ambiguous, so the old functions leave the extension.  One
-- that nothing depends on is dropped; one that a user's view or index uses is
-- kept for it, out of the extension, renamed <name>_0_1_0 (a NOTICE says so):
-- the view goes on giving the same rows (the C functions read a missing
-- normalized as true), and the extension's catalogue equals a fresh
-- install's.  The timed forms above are new in 0.2.0 and carry the parameter.

-- New last parameters of the functions of 0.1.0: normalized boolean DEFAULT
-- true (raw-value distances, issue 11 item 4; not ts_outliers nor the
-- shapelet functions) and gaps text DEFAULT 'skip' (issue 11 item 2)
-- ---------------------------------------------------------------------------
-- A new parameter changes a function's signature, and dropping the 0.1.0
-- function would drop (or, without CASCADE, refuse to drop) the views and
-- indexes of users that call it.  So each keeps its identity (its oid, on
-- which those objects depend) and takes the arguments (types, names, modes,
-- defaults) of a template created with the new signature, which is then
-- dropped: the catalogue is then a fresh install's.  Calls stored before the
-- update pass the arguments they had; the library reads a missing normalized
-- as true and a missing gaps as 'skip'.  The timed forms above are new in
-- 0.2.0 and carry both parameters.

CREATE FUNCTION tsmine_new_args_template_0(series float8[], k_sigma float8 DEFAULT 3.0, method text DEFAULT 'sigma', gaps text DEFAULT 'skip')
RETURNS TABLE (pos bigint, value float8, zscore float8)
AS 'MODULE_PATHNAME', 'ts_outliers'
LANGUAGE C IMMUTABLE PARALLEL SAFE CALLED ON NULL INPUT ROWS 10;

CREATE FUNCTION tsmine_new_args_template_1(series_sql text, k_sigma float8 DEFAULT 3.0, method text DEFAULT 'sigma', gaps text DEFAULT 'skip')
RETURNS TABLE (pos bigint, value float8, zscore float8)
AS 'MODULE_PATHNAME', 'ts_outliers_query'
LANGUAGE C VOLATILE PARALLEL UNSAFE CALLED ON NULL INPUT ROWS 10;

CREATE FUNCTION tsmine_new_args_template_2(series float8[], m int, exclusion_zone int DEFAULT NULL, normalized boolean DEFAULT true, gaps text DEFAULT 'skip')
RETURNS TABLE (pos bigint, distance float8, neighbor bigint)
AS 'MODULE_PATHNAME', 'ts_matrix_profile'
LANGUAGE C IMMUTABLE PARALLEL SAFE CALLED ON NULL INPUT ROWS 1000;

CREATE FUNCTION tsmine_new_args_template_3(series_sql text, m int, exclusion_zone int DEFAULT NULL, normalized boolean DEFAULT true, gaps text DEFAULT 'skip')
RETURNS TABLE (pos bigint, distance float8, neighbor bigint)
AS 'MODULE_PATHNAME', 'ts_matrix_profile_query'
LANGUAGE C VOLATILE PARALLEL UNSAFE CALLED ON NULL INPUT ROWS 1000;

CREATE FUNCTION tsmine_new_args_template_4(series float8[], m int, exclusion_zone int DEFAULT NULL, normalized boolean DEFAULT true, gaps text DEFAULT 'skip')
RETURNS TABLE (distance float8[], neighbor bigint[])
AS 'MODULE_PATHNAME', 'ts_matrix_profile_arrays'
LANGUAGE C IMMUTABLE PARALLEL SAFE CALLED ON NULL INPUT ROWS 1;

CREATE FUNCTION tsmine_new_args_template_5(series_sql text, m int, exclusion_zone int DEFAULT NULL, normalized boolean DEFAULT true, gaps text DEFAULT 'skip')
RETURNS TABLE (distance float8[], neighbor bigint[])
AS 'MODULE_PATHNAME', 'ts_matrix_profile_arrays_query'
LANGUAGE C VOLATILE PARALLEL UNSAFE CALLED ON NULL INPUT ROWS 1;

CREATE FUNCTION tsmine_new_args_template_6(series float8[], m int, k int DEFAULT 1, min_distance float8 DEFAULT NULL,
                            exclusion_zone int DEFAULT NULL, method text DEFAULT 'auto', normalized boolean DEFAULT true, gaps text DEFAULT 'skip')
RETURNS TABLE (rank int, pos bigint, distance float8, neighbor bigint)
AS 'MODULE_PATHNAME', 'ts_discords'
LANGUAGE C IMMUTABLE PARALLEL SAFE CALLED ON NULL INPUT ROWS 10;

CREATE FUNCTION tsmine_new_args_template_7(series_sql text, m int, k int DEFAULT 1, min_distance float8 DEFAULT NULL,
                            exclusion_zone int DEFAULT NULL, method text DEFAULT 'auto', normalized boolean DEFAULT true, gaps text DEFAULT 'skip')
RETURNS TABLE (rank int, pos bigint, distance float8, neighbor bigint)
AS 'MODULE_PATHNAME', 'ts_discords_query'
LANGUAGE C VOLATILE PARALLEL UNSAFE CALLED ON NULL INPUT ROWS 10;

CREATE FUNCTION tsmine_new_args_template_8(series float8[], m int, k int DEFAULT 1, exclusion_zone int DEFAULT NULL,
                          method text DEFAULT 'auto', n_references int DEFAULT 10, normalized boolean DEFAULT true, gaps text DEFAULT 'skip')
RETURNS TABLE (rank int, pos_a bigint, pos_b bigint, distance float8)
AS 'MODULE_PATHNAME', 'ts_motifs'
LANGUAGE C IMMUTABLE PARALLEL SAFE CALLED ON NULL INPUT ROWS 10;

CREATE FUNCTION tsmine_new_args_template_9(series_sql text, m int, k int DEFAULT 1, exclusion_zone int DEFAULT NULL,
                          method text DEFAULT 'auto', n_references int DEFAULT 10, normalized boolean DEFAULT true, gaps text DEFAULT 'skip')
RETURNS TABLE (rank int, pos_a bigint, pos_b bigint, distance float8)
AS 'MODULE_PATHNAME', 'ts_motifs_query'
LANGUAGE C VOLATILE PARALLEL UNSAFE CALLED ON NULL INPUT ROWS 10;

CREATE FUNCTION tsmine_new_args_template_10(series float8[], pattern float8[], max_distance float8 DEFAULT NULL, k int DEFAULT NULL,
                         exclusion_zone int DEFAULT NULL, normalized boolean DEFAULT true, gaps text DEFAULT 'skip')
RETURNS TABLE (rank int, pos bigint, distance float8)
AS 'MODULE_PATHNAME', 'ts_match'
LANGUAGE C IMMUTABLE PARALLEL SAFE CALLED ON NULL INPUT ROWS 10;

CREATE FUNCTION tsmine_new_args_template_11(series_sql text, pattern float8[], max_distance float8 DEFAULT NULL, k int DEFAULT NULL,
                         exclusion_zone int DEFAULT NULL, normalized boolean DEFAULT true, gaps text DEFAULT 'skip')
RETURNS TABLE (rank int, pos bigint, distance float8)
AS 'MODULE_PATHNAME', 'ts_match_query'
LANGUAGE C VOLATILE PARALLEL UNSAFE CALLED ON NULL INPUT ROWS 10;

CREATE FUNCTION tsmine_new_args_template_12(training_sql text, min_length int, max_length int, step int DEFAULT 1, k int DEFAULT 1,
                             gaps text DEFAULT 'skip')
RETURNS TABLE (rank int, source_row bigint, start int, length int, threshold float8, info_gain float8,
               gap float8, shapelet float8[])
AS 'MODULE_PATHNAME', 'ts_shapelets'
LANGUAGE C VOLATILE PARALLEL UNSAFE CALLED ON NULL INPUT ROWS 10;

CREATE FUNCTION tsmine_new_args_template_13(shapelet float8[], series float8[], gaps text DEFAULT 'skip')
RETURNS float8
AS 'MODULE_PATHNAME', 'ts_shapelet_distance'
LANGUAGE C IMMUTABLE PARALLEL SAFE CALLED ON NULL INPUT;

CREATE FUNCTION tsmine_new_args_template_14(training_sql text, min_length int, max_length int, step int DEFAULT 1,
                                 max_depth int DEFAULT NULL, logical boolean DEFAULT false, gaps text DEFAULT 'skip')
RETURNS jsonb
AS 'MODULE_PATHNAME', 'ts_shapelet_tree'
LANGUAGE C VOLATILE PARALLEL UNSAFE CALLED ON NULL INPUT;

CREATE FUNCTION tsmine_new_args_template_15(model jsonb, series float8[], gaps text DEFAULT 'skip')
RETURNS text
AS 'MODULE_PATHNAME', 'ts_shapelet_classify'
LANGUAGE C IMMUTABLE PARALLEL SAFE CALLED ON NULL INPUT;

CREATE FUNCTION tsmine_new_args_template_16(model jsonb, series_sql text, gaps text DEFAULT 'skip')
RETURNS TABLE (row_number bigint, id text, label text)
AS 'MODULE_PATHNAME', 'ts_shapelet_classify_query'
LANGUAGE C VOLATILE PARALLEL UNSAFE CALLED ON NULL INPUT ROWS 100;

DO $$
DECLARE
  t record;
  old oid;
BEGIN
  FOR t IN SELECT p.oid, p.proname, p.proargtypes, f.name, f.added
           FROM pg_catalog.pg_proc p JOIN (VALUES ('tsmine_new_args_template_0', 'ts_outliers', 1), ('tsmine_new_args_template_1', 'ts_outliers', 1), ('tsmine_new_args_template_2', 'ts_matrix_profile', 2), ('tsmine_new_args_template_3', 'ts_matrix_profile', 2), ('tsmine_new_args_template_4', 'ts_matrix_profile_arrays', 2), ('tsmine_new_args_template_5', 'ts_matrix_profile_arrays', 2), ('tsmine_new_args_template_6', 'ts_discords', 2), ('tsmine_new_args_template_7', 'ts_discords', 2), ('tsmine_new_args_template_8', 'ts_motifs', 2), ('tsmine_new_args_template_9', 'ts_motifs', 2), ('tsmine_new_args_template_10', 'ts_match', 2), ('tsmine_new_args_template_11', 'ts_match', 2), ('tsmine_new_args_template_12', 'ts_shapelets', 1), ('tsmine_new_args_template_13', 'ts_shapelet_distance', 1), ('tsmine_new_args_template_14', 'ts_shapelet_tree', 1), ('tsmine_new_args_template_15', 'ts_shapelet_classify', 1), ('tsmine_new_args_template_16', 'ts_shapelet_classify', 1)) AS f(template, name, added) ON f.template = p.proname
           WHERE p.pronamespace = (SELECT e.extnamespace FROM pg_catalog.pg_extension e WHERE e.extname = 'tsmine')
  LOOP
    -- the 0.1.0 function: the template's name and arguments without the last `added` (the new ones)
    SELECT o.oid INTO STRICT old FROM pg_catalog.pg_proc o
    WHERE o.pronamespace = (SELECT e.extnamespace FROM pg_catalog.pg_extension e WHERE e.extname = 'tsmine') AND o.proname = t.name
      AND o.pronargs = array_length(t.proargtypes::oid[], 1) - t.added
      AND (o.proargtypes::oid[])[0:o.pronargs - 1] = (t.proargtypes::oid[])[0:o.pronargs - 1];
    UPDATE pg_catalog.pg_proc o
    SET pronargs = n.pronargs, pronargdefaults = n.pronargdefaults, proargtypes = n.proargtypes,
        proallargtypes = n.proallargtypes, proargmodes = n.proargmodes, proargnames = n.proargnames,
        proargdefaults = n.proargdefaults
    FROM pg_catalog.pg_proc n
    WHERE o.oid = old AND n.oid = t.oid;
    EXECUTE format('DROP FUNCTION %s', t.oid::regprocedure);
  END LOOP;
END
$$;

COMMENT ON FUNCTION ts_shapelets(text, int, int, int, int, text) IS
'The k best shapelets of a labelled training set: training_sql returns (label, series float8[]) rows (labels of any type, compared as text). Every subsequence of every series with length min_length..max_length (by step) is a candidate; its quality is the information gain (bits) of the best split of the series by their distance to it (Definition 1: the minimum z-normalised, length-normalised Euclidean distance, in [0, 2]); ties by separation gap, then shorter length, smaller source_row, smaller start. source_row and start are 1-based; threshold is the split point. gaps: ''skip'' (the default): NULL, NaN and infinite values of the series are gaps: a window holding one is no candidate, and the distance of a shapelet to a series is the minimum over its windows without one (2, the largest distance, when it has none: the far side of every split); ''error'' rejects such values.';

COMMENT ON FUNCTION ts_shapelet_distance(float8[], float8[], text) IS
'Definition 1: the minimum over positions of the z-normalised, length-normalised Euclidean distance sqrt(sum (z_a - z_b)^2 / L) = sqrt(2 (1 - rho)) between shapelet and the windows of series; in [0, 2]. A flat window against a non-flat one counts as distance 1, two flat ones as 0. gaps: ''skip'' (the default): the windows of series holding a NULL, NaN or infinite value are left out, and the distance is NULL when every window holds one; ''error'' rejects such values. A shapelet with one is an error either way.';

COMMENT ON FUNCTION ts_shapelet_tree(text, int, int, int, int, boolean, text) IS
'A shapelet decision tree (Algorithm 2 of the GPU shapelet paper) over the training set of training_sql (label, series float8[]), or (label, times, series float8[]) with times one per value, strictly increasing, of type timestamptz, timestamp, date, bigint or integer, whose shapelets then carry the start_time where they start: each split holds the best shapelet of its subset and a distance threshold (near side: distance <= threshold goes left); leaves hold the majority label and the class counts. With logical, a split may hold two shapelets combined by AND (max of the distances) or OR (min). max_depth NULL grows until the leaves are pure or no split gains. Returns the model as jsonb for ts_shapelet_classify. gaps: as in ts_shapelets.';

COMMENT ON FUNCTION ts_shapelet_classify(jsonb, float8[], text) IS
'The label that a ts_shapelet_tree model predicts for series (the model is parsed once per query while it stays the same). gaps: ''skip'' (the default): the windows of series holding a NULL, NaN or infinite value are left out, and a series with no window of a shapelet''s length free of them is at distance 2 from it (the far side of its split); ''error'' rejects such values.';

COMMENT ON FUNCTION ts_shapelet_classify(jsonb, text, text) IS
'Batch prediction: series_sql returns (series float8[]) or (id, series float8[]); one row per input row (1-based row_number in the query''s order, id as text, predicted label), classified on all CPU threads. gaps: as in the scalar form.';

COMMENT ON FUNCTION ts_outliers(float8[], float8, text, text) IS
'Values beyond k_sigma: method ''sigma'' flags |x - mean| > k_sigma * std (population std, two-pass); ''mad'' flags |0.6745 (x - median) / MAD| > k_sigma (if MAD = 0: |x - median| / (1.253314 MeanAD) > k_sigma; if that is 0 too, none). Returns 1-based positions in series order, the value and its (modified) z-score. gaps: ''skip'' (the default) leaves NULL, NaN and infinite values out (no outliers, not in the mean, spread or median; positions still count them), ''error'' rejects them.';

COMMENT ON FUNCTION ts_outliers(text, float8, text, text) IS
'ts_outliers over the series that series_sql returns (one numeric column; its rows in the query''s order are the series, positions 1-based in that order). The query runs with the caller''s privileges.';

COMMENT ON FUNCTION ts_matrix_profile(float8[], int, int, boolean, text) IS
'Exact self-join matrix profile in float64: for each window of length m (1-based pos), the z-normalised Euclidean distance to its nearest neighbour and that neighbour''s position, among windows with |pos - neighbor| >= exclusion_zone (default ceil(m/4) + 1, which excludes what STUMPY''s excl_zone = ceil(m/4) excludes). Constant windows follow STUMPY: two constant windows are at 0, a constant and a non-constant one at sqrt(m). NULL distance and neighbour when no window qualifies. With normalized => false, the Euclidean distance of the raw values instead (STUMPY''s aamp): for data whose level matters; constant windows are then ordinary windows. gaps: ''skip'' (the default): a window holding a NULL, NaN or infinite value has NULL distance and neighbour and is no one''s neighbour; ''error'' rejects such values.';

COMMENT ON FUNCTION ts_matrix_profile(text, int, int, boolean, text) IS
'ts_matrix_profile over the series that series_sql returns (one numeric column, in the query''s order).';

COMMENT ON FUNCTION ts_matrix_profile_arrays(float8[], int, int, boolean, text) IS
'ts_matrix_profile as one row of two arrays, element i for the window at position i (as STUMPY''s P and I, 1-based): distance[i] and neighbor[i] are NULL when no window qualifies. Faster than the row form when the whole profile is kept or processed as a whole; up to about 67 million windows (1 GB). gaps: as in ts_matrix_profile.';

COMMENT ON FUNCTION ts_matrix_profile_arrays(text, int, int, boolean, text) IS
'ts_matrix_profile_arrays over the series that series_sql returns (one numeric column, in the query''s order).';

COMMENT ON FUNCTION ts_discords(float8[], int, int, float8, int, text, boolean, text) IS
'Exact discords of length m: windows whose nearest non-self match (|i - j| >= exclusion_zone, default m) is farthest, by z-normalised Euclidean distance. Without min_distance: the top k, each not overlapping (|i - j| < m) one ranked before it. With min_distance: every range discord (nearest-neighbour distance >= min_distance), ranked, at most k (k => NULL for all). method: pd3 (GPU parallel DRAG), matrix_profile, or auto. With normalized => false, by the Euclidean distance of the raw values (min_distance in the data''s units; method auto or matrix_profile). gaps: ''skip'' (the default): windows holding a NULL, NaN or infinite value are neither discords nor neighbours (method pd3 then runs as matrix_profile); ''error'' rejects such values.';

COMMENT ON FUNCTION ts_discords(text, int, int, float8, int, text, boolean, text) IS
'ts_discords over the series that series_sql returns (one numeric column, in the query''s order).';

COMMENT ON FUNCTION ts_motifs(float8[], int, int, int, text, int, boolean, text) IS
'Exact top-k motif pairs of length m by z-normalised Euclidean distance: pos_a < pos_b, pos_b - pos_a >= exclusion_zone (default m); a later pair shares no member with, and does not overlap, an earlier one. method: mk (the MK algorithm with n_references reference windows), matrix_profile, or auto. Ties: smaller distance, then smaller pos_a, then smaller pos_b. With normalized => false, by the Euclidean distance of the raw values (method auto or matrix_profile). gaps: ''skip'' (the default): windows holding a NULL, NaN or infinite value belong to no pair (method mk then runs as matrix_profile); ''error'' rejects such values.';

COMMENT ON FUNCTION ts_motifs(text, int, int, int, text, int, boolean, text) IS
'ts_motifs over the series that series_sql returns (one numeric column, in the query''s order).';

COMMENT ON FUNCTION ts_match(float8[], float8[], float8, int, int, boolean, text) IS
'Every occurrence of pattern in series by z-normalised Euclidean distance, best first: greedy by distance, skipping windows within exclusion_zone (default the pattern length) of one already returned; at most k (NULL: all), none farther than max_distance (NULL: no limit). ts_match(series, series[p:p+m-1]) gives the motif set of the window at p. With normalized => false, by the Euclidean distance of the raw values (max_distance in the data''s units). gaps: ''skip'' (the default): windows of series holding a NULL, NaN or infinite value are never matches; ''error'' rejects such values. A pattern with one is an error either way.';

COMMENT ON FUNCTION ts_match(text, float8[], float8, int, int, boolean, text) IS
'ts_match over the series that series_sql returns (one numeric column, in the query''s order).';
