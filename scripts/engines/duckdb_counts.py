"""posgeo counts table with DuckDB: runs scripts/engines/counts.sql (docs/SCALE.md).

    python scripts/engines/duckdb_counts.py CORPUS OUTPUT [--format text|jsonl|parquet]
        [--field text] [--max-len 512] [--mode condition|pad]

OUTPUT ends in .csv, .csv.gz or .parquet. Needs the `duckdb` package (PyPI).
"""
import argparse
import pathlib

import duckdb


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("corpus")
    ap.add_argument("output")
    ap.add_argument("--format", choices=["text", "jsonl", "parquet"], default=None)
    ap.add_argument("--field", default="text")
    ap.add_argument("--max-len", type=int, default=512)
    ap.add_argument("--mode", choices=["condition", "pad"], default="condition")
    a = ap.parse_args()
    fmt = a.format or ("parquet" if a.corpus.endswith(".parquet") else "jsonl" if a.corpus.endswith(".jsonl") else "text")
    con = duckdb.connect()
    for name, value in [("input", a.corpus), ("format", fmt), ("field", a.field), ("mode", a.mode), ("output", a.output)]:
        con.execute(f"SET VARIABLE {name} = ?", [value])
    con.execute(f"SET VARIABLE max_len = {int(a.max_len)}")
    con.execute((pathlib.Path(__file__).parent / "counts.sql").read_text())


if __name__ == "__main__":
    main()
