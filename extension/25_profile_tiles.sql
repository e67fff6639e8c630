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
