"""posgeo counts table with Apache Spark (PySpark; docs/SCALE.md).

    python scripts/engines/spark_counts.py CORPUS OUTPUT_DIR [--format text|jsonl|parquet]
        [--field text] [--max-len 512] [--mode condition|pad] [--master local[*]]
        [--output-format csv|parquet]

Computes the table (position, token, count, first) that `posgeo count --tokenizer
whitespace` writes: one sequence per non-empty line (a trailing \\r dropped) or record,
tokens split on Unicode White_Space runs (Rust's split_whitespace) and lowercased, positions
below max_len, <pad> rows in pad mode. `first` is a key that increases with input order
(`monotonically_increasing_id`), which is all posgeo needs to reproduce first occurrences.

OUTPUT_DIR is a Spark output directory (part files): `posgeo analyze --counts OUTPUT_DIR`
reads it as one table, and `posgeo merge` adds several. CSV is written with RFC 4180 quoting
(a quote inside a field doubled). Runs on a cluster as it does in local mode.
"""
import argparse
import sys

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

# Unicode White_Space, as Rust's str::split_whitespace splits (Java regex syntax).
WHITESPACE = "[\\t\\n\\x{0B}\\f\\r \\x{85}\\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}]+"


def records(spark, path, fmt, field):
    """(ord, text) per record, ord increasing with input order."""
    if fmt == "parquet":
        df = spark.read.parquet(path).select(F.col(field).alias("text"))
    else:
        # Lines end at \n only (Spark would also split at a bare \r by default).
        lines = spark.read.option("lineSep", "\n").text(path)
        if fmt == "jsonl":
            df = lines.where(F.trim(F.col("value")) != "").select(
                F.get_json_object("value", f"$.{field}").alias("text"))
        else:
            df = lines.select(F.regexp_replace("value", "\r$", "").alias("text"))
    return df.withColumn("ord", F.monotonically_increasing_id()).where(
        F.col("text").isNotNull() & (F.col("text") != ""))


def counts(spark, path, fmt, field, max_len, mode):
    seqs = records(spark, path, fmt, field).select(
        "ord",
        F.transform(F.filter(F.split("text", WHITESPACE), lambda t: t != ""), lambda t: F.lower(t)).alias("toks"),
    )
    tokens = (seqs.select("ord", F.posexplode("toks").alias("position", "token"))
              .where(F.col("position") < max_len)
              .groupBy("position", "token")
              .agg(F.count(F.lit(1)).alias("count"), F.min("ord").alias("first")))
    if mode == "pad":
        pads = (seqs.select("ord", F.least(F.size("toks"), F.lit(max_len)).alias("length"))
                .where(F.col("length") < max_len)
                .select("ord", F.explode(F.sequence(F.col("length"), F.lit(max_len - 1))).alias("position"))
                .groupBy("position")
                .agg(F.count(F.lit(1)).alias("count"), F.min("ord").alias("first"))
                .select("position", F.lit("<pad>").alias("token"), "count", "first"))
        tokens = (tokens.unionByName(pads).groupBy("position", "token")
                  .agg(F.sum("count").alias("count"), F.min("first").alias("first")))
    return tokens.select(F.col("position").cast("long"), "token", F.col("count").cast("long"), "first")


def parser():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("corpus")
    ap.add_argument("output")
    ap.add_argument("--format", choices=["text", "jsonl", "parquet"], default=None)
    ap.add_argument("--field", default="text")
    ap.add_argument("--max-len", type=int, default=512)
    ap.add_argument("--mode", choices=["condition", "pad"], default="condition")
    ap.add_argument("--master", default="local[*]")
    ap.add_argument("--output-format", choices=["csv", "parquet"], default="csv")
    return ap


def run(spark, a):
    fmt = a.format or ("parquet" if a.corpus.endswith(".parquet") else "jsonl" if a.corpus.endswith(".jsonl") else "text")
    table = counts(spark, a.corpus, fmt, a.field, a.max_len, a.mode)
    writer = table.write.mode("overwrite")
    if a.output_format == "parquet":
        writer.parquet(a.output)
    else:
        (writer.option("header", True).option("quote", '"').option("escape", '"')
         .option("ignoreLeadingWhiteSpace", False).option("ignoreTrailingWhiteSpace", False).csv(a.output))


def main(argv=None):
    # Several jobs separated by "--" run in one Spark session (one JVM start for all).
    argv = sys.argv[1:] if argv is None else argv
    groups, current = [], []
    for arg in argv:
        if arg == "--":
            groups.append(current)
            current = []
        else:
            current.append(arg)
    groups.append(current)
    jobs = [parser().parse_args(g) for g in groups if g]
    spark = (SparkSession.builder.master(jobs[0].master).appName("posgeo-counts")
             .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "8").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    for a in jobs:
        run(spark, a)
    spark.stop()


if __name__ == "__main__":
    main()
