"""Separate executor JVMs: spark-submit in local-cluster mode, the jar shipped with --jars.

Proves that the operators' RDDs, partitions and closures serialize, and that blocks cached on one
executor are read from another. Covers every operator.
"""

import json

from submit import spark_submit

SCRIPT = """
import json
from pyspark.sql import SparkSession
spark = SparkSession.builder.getOrCreate()
spark.conf.set("spark.rangejoin.blockRows", "200")
spark.conf.set("spark.rangejoin.rangePartitionMinRows", "1000")
spark.conf.set("spark.rangejoin.coalesce.maxParallelism", "1")  # range partitions shuffle t
spark.conf.set("spark.rangejoin.minCandidatePairs", "0")
spark.conf.set("spark.rangejoin.minSmallSideRows", "0")
spark.conf.set("spark.rangejoin.sortSpillRows", "500")  # block loads spill on the executors
# Both tables are small enough to broadcast: the block joins run unless a query turns it on.
spark.conf.set("spark.rangejoin.broadcast.enabled", "false")
spark.range(0, 3000, numPartitions=4).selectExpr(
    "id", "id % 97 AS a", "(id * 7) % 89 AS b").createOrReplaceTempView("t")
spark.range(0, 2000, numPartitions=3).selectExpr(
    "id", "id % 83 AS a", "(id * 5) % 71 AS b").createOrReplaceTempView("u")
queries = [
    ("IEJoin", "SELECT count(*), sum(t.id), sum(u.id) FROM t JOIN u ON t.a < u.a AND t.b >= u.b"),
    ("IEJoin", "SELECT count(*), count(u.id) FROM t LEFT JOIN u ON t.a < u.a AND t.b > u.b + 60"),
    ("IEJoin", "SELECT count(*), count(t.id) FROM t RIGHT JOIN u ON t.a > u.a + 80 AND t.b < u.b"),
    ("IEJoin", "SELECT count(*), count(t.id), count(u.id) FROM t FULL JOIN u "
               "ON t.a > u.a + 90 AND t.b < u.b"),
    ("IEJoin", "SELECT count(*) FROM t WHERE EXISTS "
               "(SELECT 1 FROM u WHERE t.a > u.a + 70 AND t.b < u.b)"),
    ("BoundFilterJoin", "SELECT count(*) FROM t WHERE NOT EXISTS "
                        "(SELECT 1 FROM u WHERE t.a > u.a + 50)"),
    ("PiecewiseMergeJoin", "SELECT count(*), sum(t.id) FROM t JOIN u ON t.a < u.a - 70"),
    ("PiecewiseMergeJoin", "SELECT count(*) FROM t LEFT ANTI JOIN u ON t.a < u.a - 60 "
                           "AND t.id <> u.id"),
    ("SlidingWindowJoin", "SELECT count(*), sum(t.id) FROM t JOIN u "
                              "ON t.a = u.a AND t.b BETWEEN u.b - 3 AND u.b + 2"),
    ("SlidingWindowJoin", "SELECT count(t.id), count(u.id) FROM t FULL JOIN u "
                              "ON t.a = u.a AND t.b BETWEEN u.b AND u.b + 1"),
    ("KeyGroupIEJoin", "SELECT count(*), count(u.id) FROM t LEFT JOIN u "
                       "ON t.a = u.a AND t.b < u.b AND t.id > u.id"),
    ("BroadcastRangeJoin", "SELECT count(*), count(u.id) FROM t LEFT JOIN u "
                           "ON t.a < u.a AND t.b > u.b + 60"),
    ("BroadcastRangeJoin", "SELECT count(*), count(t.id) FROM t RIGHT JOIN u ON t.a > u.a + 80"),
]
results = []
for operator, q in queries:
    spark.conf.set("spark.rangejoin.enabled", "true")
    spark.conf.set("spark.rangejoin.broadcast.enabled", str(operator == "BroadcastRangeJoin"))
    # Broadcast u (two thirds of t's rows) and, for a right join, t (1.5 times u's) all the same.
    spark.conf.set("spark.rangejoin.broadcast.maxRowsRatio", "2")
    df = spark.sql(q)
    on = [tuple(r) for r in df.collect()]
    plan = df._jdf.queryExecution().executedPlan().toString()
    spark.conf.set("spark.rangejoin.enabled", "false")
    off = [tuple(r) for r in spark.sql(q).collect()]
    ran = any(x.lstrip(" :+-").startswith(operator + " ") for x in plan.splitlines())
    results.append({"query": q, "on": on, "off": off, "accelerated": ran})
print("RESULTS:" + json.dumps(results))
"""


def test_every_join_type_on_separate_executors(tmp_path):
    stdout = spark_submit(SCRIPT, tmp_path, "local-cluster[2,1,1024]")
    line = next(x for x in stdout.splitlines() if x.startswith("RESULTS:"))
    results = json.loads(line[len("RESULTS:") :])
    for r in results:
        assert r["accelerated"], r["query"]
        assert r["on"] == r["off"], r
    assert len(results) == 13
