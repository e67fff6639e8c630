#!/usr/bin/env python3
"""tsmine from Python: store a numpy series in PostgreSQL, find its discords
and its matrix profile, read the results into pandas, and pass a
user-supplied value to the query form without building SQL text from it.

Debian 12:  apt-get install python3-psycopg python3-numpy python3-pandas
Run:        python3 examples/python/tsmine_example.py [--dsn DSN] [--sensor NAME]
            (without --dsn, libpq's PGHOST, PGPORT, PGUSER, PGDATABASE, ...)

The database needs tsmine (CREATE EXTENSION tsmine, done here if it can be).
Everything the example stores is in temporary tables: it leaves nothing
behind.  Its checks are assertions: it exits non-zero when one fails.
"""
import argparse
import sys

import numpy as np
import pandas as pd
import psycopg

M = 50            # subsequence (window) length
ANOMALY = 1200    # where the series gets a distorted cycle (0-based index)


def make_series(n=3000, seed=7):
    """A noisy sine, one cycle per 100 points, with one distorted cycle."""
    rng = np.random.default_rng(seed)
    t = np.arange(n)
    x = np.sin(2 * np.pi * t / 100) + 0.05 * rng.standard_normal(n)
    x[ANOMALY:ANOMALY + 40] += np.hanning(40) * 1.5
    times = pd.date_range("2026-01-01", periods=n, freq="min", tz="UTC")
    return pd.Series(x, index=times, name="v")


def frame(cur):
    """The rows of the last query as a DataFrame, with its column names."""
    return pd.DataFrame(cur.fetchall(), columns=[c.name for c in cur.description])


def store(cur, sensor, series):
    """Two ways to keep a series: one row per value, and one array per sensor."""
    cur.execute("CREATE TEMP TABLE readings (sensor text, ts timestamptz, v float8, PRIMARY KEY (sensor, ts))")
    with cur.copy("COPY readings (sensor, ts, v) FROM STDIN") as copy:
        for ts, v in series.items():
            copy.write_row((sensor, ts.to_pydatetime(), float(v)))
    cur.execute("CREATE TEMP TABLE series (sensor text PRIMARY KEY, vals float8[] NOT NULL)")
    cur.execute("INSERT INTO series VALUES (%s, %s)", (sensor, series.to_numpy().tolist()))


def discords_array_form(cur, sensor, k):
    # The series is chosen by a bound parameter of this statement: the text is fixed.
    cur.execute("""SELECT d.rank, d.pos, d.distance, d.neighbor
                   FROM series s, ts_discords(s.vals, %s, %s) d
                   WHERE s.sensor = %s ORDER BY d.rank""", (M, k, sensor))
    return frame(cur)


def profile(cur, series):
    # The numpy array itself as the argument (a float8[] parameter), nothing stored.
    # exclusion_zone = M, the discords' default, so that the profile's maximum is the top discord.
    cur.execute("SELECT distance, neighbor FROM ts_matrix_profile_arrays(%s::float8[], %s, %s)",
                (series.to_numpy().tolist(), M, M))
    distance, neighbor = cur.fetchone()
    return pd.DataFrame({"distance": np.array(distance, dtype=float),
                         "neighbor": pd.array(neighbor, dtype="Int64")},
                        index=pd.RangeIndex(1, len(distance) + 1, name="pos"))


# The query form runs the text of its first argument as SQL, with the
# caller's privileges.  Never put a user's value into that text (no f-strings,
# no %-formatting, no quoting helpers): keep the text fixed and let the value
# reach the query as data.  Two ways:

def discords_query_form_setting(cur, sensor, k):
    """The value as a transaction-local setting that the fixed query reads."""
    cur.execute("SELECT set_config('tsmine_example.sensor', %s, true)", (sensor,))
    cur.execute("""SELECT rank, pos, distance, neighbor
                   FROM ts_discords('SELECT v FROM readings
                                     WHERE sensor = current_setting(''tsmine_example.sensor'')
                                     ORDER BY ts', %s, %s)
                   ORDER BY rank""", (M, k))
    return frame(cur)


def discords_query_form_table(cur, sensor, k):
    """The rows the user asked for copied into a temporary table, by a bound parameter."""
    cur.execute("CREATE TEMP TABLE IF NOT EXISTS picked (ts timestamptz, v float8)")
    cur.execute("TRUNCATE picked")
    cur.execute("INSERT INTO picked SELECT ts, v FROM readings WHERE sensor = %s", (sensor,))
    cur.execute("""SELECT rank, pos, distance, neighbor
                   FROM ts_discords('SELECT v FROM picked ORDER BY ts', %s, %s)
                   ORDER BY rank""", (M, k))
    return frame(cur)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dsn", default="", help="libpq connection string (default: the PG* environment)")
    ap.add_argument("--sensor", default="valve-7", help="the sensor name, as a user would type it")
    args = ap.parse_args()
    series = make_series()
    n = len(series)

    with psycopg.connect(args.dsn) as conn, conn.cursor() as cur:
        cur.execute("CREATE EXTENSION IF NOT EXISTS tsmine")
        store(cur, args.sensor, series)

        discords = discords_array_form(cur, args.sensor, 3)
        discords["ts"] = series.index[discords["pos"] - 1]
        print("top discords (array form):\n", discords.to_string(index=False), sep="")
        top = discords.iloc[0]
        assert ANOMALY - M < top["pos"] - 1 < ANOMALY + 40, f"the top discord {top['pos']} is not the anomaly"

        mp = profile(cur, series)
        print(f"\nmatrix profile: {len(mp)} windows, largest distance {mp['distance'].max():.6f} "
              f"at {mp['distance'].idxmax()}")
        assert len(mp) == n - M + 1, "one profile entry per window"
        assert mp["distance"].idxmax() == top["pos"], "the profile's maximum is the top discord"
        assert np.isclose(mp["distance"].max(), top["distance"], rtol=1e-9), "same distance"
        assert mp.loc[top["pos"], "neighbor"] == top["neighbor"], "same neighbour"

        by_setting = discords_query_form_setting(cur, args.sensor, 3)
        by_table = discords_query_form_table(cur, args.sensor, 3)
        pd.testing.assert_frame_equal(by_setting, discords.drop(columns="ts"), check_dtype=False)
        pd.testing.assert_frame_equal(by_table, discords.drop(columns="ts"), check_dtype=False)
        print("\nthe query form, with the sensor passed as data, gives the same discords")

        hostile = "x' OR true) --"
        assert len(discords_query_form_setting(cur, hostile, 3)) == 0, "a hostile value is only a name"
        assert len(discords_query_form_table(cur, hostile, 3)) == 0, "a hostile value is only a name"
        cur.execute("SELECT count(*) FROM readings")
        assert cur.fetchone()[0] == n, "the table is intact"
        print(f"a value like {hostile!r} selects no sensor: it never becomes SQL")
    print("\nall checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
