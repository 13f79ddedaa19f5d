"""A race of spark-rangejoin against references on one workload, and the table of results."""

from common import best_of, capped, duckdb_query, normalize, once, plan_text, spark_query


def operator_line(spark, query: str) -> str:
    spark.conf.set("spark.rangejoin.enabled", "true")
    plan = plan_text(spark, query)
    return next(line.strip() for line in plan.splitlines() if "Join" in line)


class Race:
    """One workload at one size: the plugin's time, then references with the same answer."""

    def __init__(self, spark, label: str, rows: int, query: str, table: list):
        self.spark, self.label, self.rows, self.query, self.table = spark, label, rows, query, table
        self.say(operator_line(spark, query))
        self.fast_s, self.fast = best_of(5, spark_query(spark, query, accelerated=True))
        self.say(f"spark-rangejoin: {self.fast_s:.3f} s -> {self.fast[0]}")

    def say(self, text: str) -> None:
        print(f"[{self.label} {self.rows:,}] {text}", flush=True)

    def record(self, reference: str, seconds) -> None:
        self.table.append((self.label, self.rows, reference, seconds, self.fast_s))

    def vanilla(self) -> None:
        slow_s, slow = once(spark_query(self.spark, self.query, accelerated=False))
        self.say(f"vanilla Spark: {slow_s:.3f} s -> {slow[0]}")
        assert self.fast == slow, f"answers differ: {self.fast} vs {slow}"
        self.record("vanilla Spark", slow_s)

    def duckdb(self, query: str, cap: float | None = None) -> None:
        run = duckdb_query(query)
        if cap is None:
            duck_s, duck = best_of(5, run)
        else:
            duck_s, duck = capped(cap, run, run.interrupt)
        if duck_s is None:
            self.say(f"DuckDB: > {cap:.0f} s (cap)")
        else:
            self.say(f"DuckDB: {duck_s:.3f} s -> {duck[0]}")
            assert normalize(self.fast) == normalize(duck), f"answers differ: {self.fast} vs {duck}"
        self.record("DuckDB", duck_s)


def parquet(path: str) -> str:
    return f"read_parquet('{path}/*.parquet')"


def print_table(table: list) -> None:
    """Prints the recorded races as a Markdown table."""
    print()
    print("| query | rows per side | reference | reference s | spark-rangejoin s | ratio |")
    print("|---|---:|---|---:|---:|---|")
    for query, rows, ref, ref_s, plugin_s in table:
        if ref_s is None:
            ref_text, ratio = ("-", "-") if ref == "-" else ("> cap", "-")
        else:
            ref_text = f"{ref_s:.3f}"
            ratio = (
                f"plugin {ref_s / plugin_s:.1f}x faster"
                if ref_s >= plugin_s
                else f"plugin {plugin_s / ref_s:.1f}x slower"
            )
        print(f"| {query} | {rows:,} | {ref} | {ref_text} | {plugin_s:.3f} | {ratio} |")
