-- tsmine 0.1.0 -> 0.2.0, run by ALTER EXTENSION tsmine UPDATE.
\echo Use "ALTER EXTENSION tsmine UPDATE TO '0.2.0'" to load this file. \quit

-- Every change to the SQL surface (extension/*.sql) between the 0.1.0 release
-- and 0.2.0 goes here too: new functions (CREATE FUNCTION), changed markings
-- (ALTER FUNCTION ... STABLE / PARALLEL SAFE / ROWS), comments (COMMENT ON),
-- new defaults or result columns (CREATE OR REPLACE FUNCTION where the result
-- type is unchanged).  Never DROP a function of 0.1.0: users' views, indexes
-- and stored models depend on it.  test/pgtap/upgrade.sql fails until the
-- catalogue of an updated install equals that of a fresh 0.2.0 install.
--
-- So far 0.2.0 has 0.1.0's functions, signatures, markings and comments.
