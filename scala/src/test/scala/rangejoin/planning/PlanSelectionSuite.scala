package rangejoin.planning

import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.catalyst.plans.logical.Join
import org.apache.spark.sql.catalyst.plans.physical.RangePartitioning
import org.apache.spark.sql.execution.exchange.ShuffleExchangeExec
import org.apache.spark.sql.execution.metric.SQLMetric
import org.apache.spark.sql.execution.rangejoin.JobCounter
import org.apache.spark.sql.types.DoubleType

import rangejoin.RangeJoinTestBase
import rangejoin.condition.JoinConditionAnalysis
import rangejoin.config.RangeJoinConf

/** Where IEJoinExec is planned and where Spark keeps the join; configs; EXPLAIN; metrics. */
class PlanSelectionSuite extends RangeJoinTestBase {

  private def setUp(): Unit = {
    spark.range(0, 200).selectExpr("id", "id % 13 AS a", "id % 7 AS b").createOrReplaceTempView("p")
    spark.range(0, 150).selectExpr("id", "id % 11 AS a", "id % 5 AS b").createOrReplaceTempView("q")
  }

  test("the extension registers its planner strategy") {
    assert(
      spark.sessionState.planner.extraPlanningStrategies.exists(_.isInstanceOf[RangeJoinStrategy])
    )
  }

  test("two inequalities plan IEJoinExec") {
    setUp()
    checkAgainstVanilla("SELECT p.id, q.id FROM p JOIN q ON p.a < q.a AND p.b > q.b")
    checkAgainstVanilla("SELECT p.id, q.id FROM p, q WHERE p.a < q.a AND q.b <= p.b")
  }

  test("Spark keeps equi-joins, disjunctions, hints and unsupported keys") {
    setUp()
    val notAccelerated = Seq(
      "SELECT p.id, q.id FROM p JOIN q ON p.a = q.a",
      "SELECT p.id, q.id FROM p JOIN q ON p.a = q.a AND p.b > q.b",
      "SELECT p.id, q.id FROM p JOIN q ON p.a <=> q.a AND p.b > q.b AND p.id < q.id",
      "SELECT p.id, q.id FROM p JOIN q ON p.a < q.a OR p.b > q.b",
      "SELECT p.id, q.id FROM p JOIN q ON array(p.a) < array(q.a) AND p.b > p.id",
      "SELECT /*+ BROADCAST(q) */ p.id, q.id FROM p JOIN q ON p.a < q.a AND p.b > q.b"
    )
    notAccelerated.foreach(checkOperator(_, None))
    // Nothing to index: no inequality of a left and a right expression, whichever operator is on
    // (the broadcast join, which needs an index, must not take such a join either).
    val noInequality = Seq(
      "SELECT p.id, q.id FROM p JOIN q ON p.a * q.a < 10",
      "SELECT p.id, q.id FROM p JOIN q ON p.a < q.a OR p.b > q.b",
      "SELECT p.id, q.id FROM p LEFT JOIN q ON p.a + q.a * q.b < p.b"
    )
    withConf(RangeJoinConf.BroadcastEnabled.key -> "true") {
      noInequality.foreach(checkAgainstVanilla(_, accelerated = false))
    }
  }

  test("a join left to Spark for want of an inequality says what keeps each conjunct out") {
    setUp()
    def reason(condition: String): String = {
      val df = spark.sql(s"SELECT p.id, q.id FROM p JOIN q ON $condition")
      val lines = Declines.explain(df.queryExecution)
      assert(lines.length == 1, lines.mkString("\n"))
      val line = lines.head
      assert(line.contains("to Spark: no part of the condition compares"), line)
      line.substring(line.indexOf("by a constant: ") + "by a constant: ".length)
    }
    assert(reason("p.a * q.a < 10") == "`((p.a * q.a) < 10L)` has `(p.a * q.a)` reading both " +
      "inputs, and is not a difference bounded by a constant (decimal differences, " +
      "abs(x - y) > c and non-constant bounds are not rewritten)")
    assert(
      reason("p.a < q.a OR p.b > q.b") == "`((p.a < q.a) OR (p.b > q.b))` is a disjunction (OR)"
    )
    assert(reason("array(p.a) < array(q.b)").endsWith(
      "compares array<bigint> values, a type the plugin does not sort"
    ))
  }

  test("one inequality plans PiecewiseMergeJoinExec, two or more IEJoinExec, any join type") {
    setUp()
    checkOperator("SELECT p.id, q.id FROM p JOIN q ON p.a < q.a", Some("PiecewiseMergeJoin"))
    checkOperator(
      "SELECT p.id, q.id FROM p LEFT JOIN q ON p.a < q.a AND p.b > q.b",
      Some("IEJoin")
    )
    checkOperator(
      "SELECT p.id FROM p WHERE EXISTS (SELECT 1 FROM q WHERE p.a > q.a + 3)",
      Some("BoundFilterJoin")
    )
    checkOperator(
      "SELECT p.id FROM p WHERE EXISTS (SELECT 1 FROM q WHERE p.a > q.a + 3 AND p.b <> q.b)",
      Some("PiecewiseMergeJoin")
    )
    withConf(RangeJoinConf.PiecewiseMergeJoinEnabled.key -> "false") {
      checkOperator("SELECT p.id, q.id FROM p JOIN q ON p.a < q.a", None)
    }
  }

  test("EXPLAIN shows how a single-inequality existence join is answered") {
    setUp()
    val text = spark
      .sql("EXPLAIN SELECT p.id FROM p WHERE NOT EXISTS (SELECT 1 FROM q WHERE p.a > q.a + 3)")
      .collect()
      .head
      .getString(0)
    assert(text.contains("BoundFilterJoin LeftAnti, ["), text)
    assert(text.contains("filter by min((q.a + 3L))"), text)
    assert(!text.contains("rangepartitioning"), text)
  }

  test("df.rdd and explain() start no Spark job; an action runs the driver jobs once") {
    setUp()
    // Inputs that are not shuffled: a range-partitioned input's exchange samples its input
    // when Spark builds the exchange, which is Spark's range partitioner, not this operator.
    val queries = Seq(
      "SELECT p.id, q.id FROM p JOIN q ON p.a < q.a AND p.b > q.b" -> "IEJoin",
      "SELECT p.id, q.id FROM p FULL JOIN q ON p.a < q.a" -> "PiecewiseMergeJoin",
      "SELECT p.id FROM p LEFT ANTI JOIN q ON p.a > q.a + 3" -> "BoundFilterJoin"
    )
    for ((q, operator) <- queries; adaptive <- Seq("true", "false")) {
      withConf(
        "spark.sql.adaptive.enabled" -> adaptive,
        RangeJoinConf.RangePartitionMinRows.key -> "1000"
      ) {
        val df = spark.sql(q)
        val (rdd, jobsForRdd) = JobCounter.during(spark) {
          df.explain()
          df.rdd
        }
        assert(rangeJoins(df.queryExecution.executedPlan) == Seq(operator))
        assert(jobsForRdd == 0, s"$q (adaptive $adaptive) started jobs before any action")
        val (count, jobsForCount) = JobCounter.during(spark)(rdd.count())
        assert(count == multiset(df).size)
        assert(jobsForCount >= 2, s"$q: the driver jobs and the join's own job")
      }
    }
  }

  test("a non-deterministic comparison is not an inequality key") {
    setUp()
    // Spark keeps the non-deterministic conjunct in a Filter above the join, leaving one
    // inequality in the join condition: a piecewise merge join, not IEJoin.
    checkOperator(
      "SELECT count(*) > -1 FROM p JOIN q ON p.a < q.a WHERE p.b > q.b + rand() * 0",
      Some("PiecewiseMergeJoin")
    )
    val a = AttributeReference("a", DoubleType)()
    val b = AttributeReference("b", DoubleType)()
    def inequalities(condition: Expression) =
      JoinConditionAnalysis.analyze(condition, AttributeSet(a), AttributeSet(b)).inequalities
    assert(inequalities(LessThan(a, Add(b, Rand(Literal(0L))))).isEmpty)
    assert(inequalities(LessThan(a, Add(b, Literal(1.0)))).size == 1)
  }

  test("the switches turn the operator off at runtime, and a bad value names the key") {
    setUp()
    val q = "SELECT p.id, q.id FROM p JOIN q ON p.a < q.a AND p.b > q.b"
    withConf(RangeJoinConf.IEJoinEnabled.key -> "false")(checkAgainstVanilla(
      q,
      accelerated = false
    ))
    withConf(RangeJoinConf.Enabled.key -> "false")(checkAgainstVanilla(q, accelerated = false))
    checkAgainstVanilla(q)
    for (key <- Seq(RangeJoinConf.Enabled.key, RangeJoinConf.IEJoinEnabled.key)) {
      val e = intercept[IllegalArgumentException] {
        withConf(key -> "maybe")(spark.sql(q).collect())
      }
      assert(e.getMessage.contains(key) && e.getMessage.contains("true, false"), e.getMessage)
    }
    val e = intercept[IllegalArgumentException] {
      withConf(RangeJoinConf.BlockRows.key -> "0")(spark.sql(q).collect())
    }
    assert(e.getMessage.contains(RangeJoinConf.BlockRows.key), e.getMessage)
  }

  test("a mistyped key or a bad value fails the next join, naming the key to use") {
    setUp()
    val q = "SELECT p.id, q.id FROM p JOIN q ON p.a < q.a AND p.b > q.b"
    val mistyped = intercept[IllegalArgumentException] {
      withConf("spark.rangejoin.enable" -> "false")(spark.sql(q).collect())
    }
    assert(
      mistyped.getMessage.startsWith(
        "Unknown configuration spark.rangejoin.enable: spark-rangejoin has no such key. " +
          s"Did you mean ${RangeJoinConf.Enabled.key}?"
      ),
      mistyped.getMessage
    )
    // Checked whether or not the join reads the key: a keyed limit, on a join without keys.
    val empty = intercept[IllegalArgumentException] {
      withConf(RangeJoinConf.KeyedMinCandidatePairs.key -> "")(spark.sql(q).collect())
    }
    assert(empty.getMessage.contains(RangeJoinConf.KeyedMinCandidatePairs.key), empty.getMessage)
    // Known keys, deprecated names too, and settings of other components pass.
    RangeJoinConf.validate(
      RangeJoinConf.all.map(e => e.key -> e.default.toString) ++
        Seq("spark.rangejoin.pwmj.enabled" -> "true", "spark.sql.anything" -> "x")
    )
    checkAgainstVanilla(q)
  }

  test("renamed switches still read their old keys; the new key wins when both are set") {
    setUp()
    val single = "SELECT p.id, q.id FROM p JOIN q ON p.a < q.a"
    val window = "SELECT p.id, q.id FROM p JOIN q ON p.a = q.a AND p.b BETWEEN q.b - 2 AND q.b + 2"
    val renamed = Seq(
      (RangeJoinConf.PiecewiseMergeJoinEnabled, single, Some("PiecewiseMergeJoin"), None),
      (
        RangeJoinConf.SlidingWindowJoinEnabled,
        window,
        Some("SlidingWindowJoin"),
        Some("KeyGroupIEJoin")
      )
    )
    for ((entry, q, on, off) <- renamed) {
      val old = entry.deprecatedKeys.head
      withConf(old -> "false")(checkOperator(q, off))
      withConf(old -> "false", entry.key -> "true")(checkOperator(q, on))
      val e = intercept[IllegalArgumentException](withConf(old -> "no")(spark.sql(q).collect()))
      assert(e.getMessage.contains(old), e.getMessage)
    }
  }

  test("a join of few candidate pairs is left to Spark, whatever its type") {
    setUp() // 200 x 150 rows: 30000 candidate pairs, though Spark's estimate is rougher
    val joins = Seq("JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN", "LEFT ANTI JOIN").map { j =>
      s"SELECT * FROM p $j q ON p.a < q.a AND p.b > q.b"
    }
    withConf(RangeJoinConf.MinCandidatePairs.key -> "1000000") {
      joins.foreach(checkOperator(_, None))
    }
    withConf(RangeJoinConf.MinCandidatePairs.key -> "1") {
      joins.foreach(checkOperator(_, Some("IEJoin")))
    }
  }

  test("a join with a tiny input is left to Spark, however many candidate pairs") {
    spark.range(0, 2000).selectExpr("id", "id % 97 AS a", "id % 89 AS b").createOrReplaceTempView(
      "many"
    )
    spark.range(0, 8).selectExpr("id", "id * 11 AS a", "id * 9 AS b").createOrReplaceTempView(
      "eight"
    )
    val joins = Seq(
      "SELECT * FROM many m JOIN eight e ON m.a < e.a AND m.b > e.b",
      "SELECT * FROM eight e LEFT JOIN many m ON m.a < e.a AND m.b > e.b",
      "SELECT * FROM many m FULL JOIN eight e ON m.a < e.a"
    )
    // The ladder reads Spark's estimate of the 8-row input, not its true size.
    val small = spark.sql(joins.head).queryExecution.optimizedPlan.collectFirst {
      case j: Join => SizeEstimates.rows(j.right)
    }.get
    withConf(RangeJoinConf.MinSmallSideRows.key -> small.toString) {
      joins.foreach(checkOperator(_, None))
    }
    withConf(RangeJoinConf.MinSmallSideRows.key -> (small - 1).toString) {
      checkOperator(joins(0), Some("IEJoin"))
      checkOperator(joins(1), Some("IEJoin"))
      checkOperator(joins(2), Some("PiecewiseMergeJoin"))
    }
  }

  test("an input Spark would broadcast is broadcast only when much the smaller") {
    spark.range(0, 2000).selectExpr("id", "id % 97 AS a", "id % 89 AS b").createOrReplaceTempView(
      "many"
    )
    spark.range(0, 400).selectExpr("id", "id % 11 AS a", "id % 9 AS b").createOrReplaceTempView(
      "some"
    )
    val selfJoin =
      "SELECT count(*), sum(x.id * y.id) FROM many x JOIN many y ON x.a < y.a AND x.b > y.b"
    val smaller =
      "SELECT count(*), sum(m.id * s.id) FROM many m JOIN some s ON m.a < s.a AND m.b > s.b"
    // Small inputs are broadcast whatever the ratio, unless the ratio applies from 0 rows; it
    // applies above spark.rangejoin.broadcast.ratioAboveRows (16,384) rows by default.
    withConf(RangeJoinConf.BroadcastEnabled.key -> "true") {
      checkOperator(selfJoin, Some("BroadcastRangeJoin"))
      // Spark estimates this view at 50,000 rows: its size estimate / the row width.
      spark.range(0, 100000).selectExpr("id", "id % 97 AS a", "id % 89 AS b")
        .createOrReplaceTempView("more")
      val larger = "SELECT count(*) FROM more x JOIN more y ON x.a < y.a AND x.b > y.b"
      assert(rangeJoins(spark.sql(larger).queryExecution.executedPlan) == Seq("IEJoin"))
      withConf(RangeJoinConf.BroadcastRatioAboveRows.key -> "50000") {
        assert(
          rangeJoins(spark.sql(larger).queryExecution.executedPlan) == Seq("BroadcastRangeJoin")
        )
      }
    }
    withConf(
      RangeJoinConf.BroadcastEnabled.key -> "true",
      RangeJoinConf.BroadcastRatioAboveRows.key -> "0"
    ) {
      checkOperator(selfJoin, Some("IEJoin"))
      checkOperator(smaller, Some("BroadcastRangeJoin"))
      withConf(RangeJoinConf.BroadcastMaxRowsRatio.key -> "0.05") {
        checkOperator(smaller, Some("IEJoin"))
      }
      withConf(RangeJoinConf.BroadcastMaxRowsRatio.key -> "1") {
        checkOperator(selfJoin, Some("BroadcastRangeJoin"))
      }
      val cached = spark.table("many").cache()
      try checkOperator(selfJoin, Some("BroadcastRangeJoin"))
      finally cached.unpersist()
      withConf(RangeJoinConf.BroadcastMaxRowsRatio.key -> "0") {
        val error = intercept[IllegalArgumentException](spark.sql(smaller).queryExecution.sparkPlan)
        assert(error.getMessage.contains(RangeJoinConf.BroadcastMaxRowsRatio.key), error)
        assert(error.getMessage.contains("a number greater than 0"), error)
      }
    }
  }

  test("adaptive execution re-decides on the inputs' runtime sizes when the estimate was wrong") {
    // Spark estimates the filtered input as large as its table; it holds 10 rows.
    spark.range(0, 1000).selectExpr("id", "id % 97 AS a", "id % 89 AS b").createOrReplaceTempView(
      "big"
    )
    val q = "SELECT x.id, y.id FROM big x JOIN (SELECT * FROM big WHERE id % 100 = 0) y " +
      "ON x.a < y.a AND x.b >= y.b"
    withConf(
      "spark.sql.adaptive.enabled" -> "true",
      RangeJoinConf.MinCandidatePairs.key -> "100000"
    ) {
      // Planned on estimates: about 1000 x 1000 pairs.
      assert(rangeJoins(spark.sql(q).queryExecution.executedPlan) == Seq("IEJoin"))
      // Run: the inputs' stages report 1000 x 10 pairs, and Spark's nested loop join runs.
      checkOperator(q, None)
    }
    withConf("spark.sql.adaptive.enabled" -> "false") {
      checkOperator(q, Some("IEJoin"))
    }
  }

  test("a large side is range-partitioned on its first key; a small side is not shuffled") {
    // rangePartitionMinRows is 40 in these tests.
    spark.range(
      0,
      1000
    ).selectExpr("id", "id % 97 AS a", "id % 89 AS b").createOrReplaceTempView("big")
    spark.range(
      0,
      20
    ).selectExpr("id", "id * 5 AS a", "id * 4 AS b").createOrReplaceTempView("small")
    for ((l, r, expected) <- Seq(("big", "small", 1), ("small", "big", 1), ("big", "big", 2))) {
      val q = s"SELECT x.id, y.id FROM $l x JOIN $r y ON x.a < y.a AND x.b >= y.b"
      checkAgainstVanilla(q)
      val plan = spark.sql(q).queryExecution.executedPlan
      val rangeExchanges = collect(plan) {
        case e: ShuffleExchangeExec if e.outputPartitioning.isInstanceOf[RangePartitioning] => e
      }
      assert(rangeExchanges.size == expected, plan)
    }
  }

  test("on few cores a large side that fits a task is coalesced, not range-partitioned") {
    // rangePartitionMinRows is 40 and coalesce.maxParallelism 1 in these tests; two cores.
    spark.range(0, 1000).selectExpr("id", "id % 97 AS a", "id % 89 AS b").createOrReplaceTempView(
      "big"
    )
    val q = "SELECT x.id, y.id FROM big x JOIN big y ON x.a < y.a AND x.b >= y.b"
    def rangeExchanges(): Int = {
      checkAgainstVanilla(q)
      collect(spark.sql(q).queryExecution.executedPlan) {
        case e: ShuffleExchangeExec if e.outputPartitioning.isInstanceOf[RangePartitioning] => e
      }.size
    }
    withConf(RangeJoinConf.CoalesceMaxParallelism.key -> "2") {
      assert(rangeExchanges() == 0) // a small table against 1/16 of a task's memory
      assert(spark.sql(q).queryExecution.executedPlan.toString.contains("left coalesced"))
      // A share above the fraction of a task's memory is range-partitioned.
      withConf(RangeJoinConf.CoalesceMaxMemoryFraction.key -> "1e-9")(assert(rangeExchanges() == 2))
    }
  }

  test("EXPLAIN shows the IEJoin node with its conditions") {
    setUp()
    val text = spark
      .sql("EXPLAIN SELECT p.id, q.id FROM p JOIN q ON p.a < q.a AND p.b >= q.b AND p.id <> q.id")
      .collect()
      .head
      .getString(0)
    assert(
      text.contains(
        "IEJoin Inner, [p.a < q.a, p.b >= q.b], residual: (NOT (p.id = q.id)), blockRows=16, " +
          "left range-partitioned, right range-partitioned"
      ),
      text
    )
  }

  test("metrics count output rows and joined and pruned block pairs") {
    setUp()
    withConf(RangeJoinConf.BlockRows.key -> "20") {
      // Correlated keys: most block pairs cannot match and are pruned.
      val df = spark.sql("SELECT p.id, q.id FROM p JOIN q ON p.id < q.id AND p.id + 3 > q.id")
      val rows = df.collect().length
      val join = ieJoins(df.queryExecution.executedPlan).head
      def metric(name: String): Long = join.metrics(name).asInstanceOf[SQLMetric].value
      assert(metric("numOutputRows") == rows && rows > 0)
      assert(metric("blockPairs") > 0 && metric("prunedBlockPairs") > metric("blockPairs"))
      // At most 20 rows a block: at least 10 blocks of p and 8 of q, so 80 pairs or more.
      assert(metric("blockPairs") + metric("prunedBlockPairs") >= 80)
      assert(metric("localJoinTime") > 0)
    }
  }

  test("equality keys: a window plans SlidingWindowJoin, other inequalities KeyGroupIEJoin") {
    setUp()
    val window = "SELECT p.id, q.id FROM p JOIN q ON p.a = q.a AND p.b BETWEEN q.b - 1 AND q.b + 2"
    checkOperator(window, Some("SlidingWindowJoin"))
    val text = spark.sql(s"EXPLAIN $window").collect().head.getString(0)
    assert(
      text.contains(
        "SlidingWindowJoin Inner, keys [p.a = q.a], window [(p.b <= (q.b + 2L)), " +
          "(p.b >= (q.b - 1L))]"
      ),
      text
    )
    checkOperator(
      "SELECT p.id, q.id FROM p JOIN q ON p.a = q.a AND p.b > q.b AND p.id < q.id",
      Some("KeyGroupIEJoin")
    )
    // One inequality with equality keys: Spark's hash join with a filter.
    checkOperator("SELECT p.id, q.id FROM p JOIN q ON p.a = q.a AND p.b > q.b", None)
  }

  test(
    "with distinct counts in the statistics, keyed joins of few candidate pairs stay with Spark"
  ) {
    // No broadcast: adaptive execution then re-plans the join once its shuffle stages have run,
    // when the stages below it carry runtime row counts but no column statistics.
    withConf("spark.sql.cbo.enabled" -> "true", "spark.sql.autoBroadcastJoinThreshold" -> "-1") {
      spark.sql("DROP TABLE IF EXISTS keyed_stats")
      spark.range(0, 400).selectExpr("id", "id % 200 AS k", "id % 17 AS t")
        .write.saveAsTable("keyed_stats")
      try {
        spark.sql("ANALYZE TABLE keyed_stats COMPUTE STATISTICS FOR COLUMNS k, t")
        // 400 x 400 rows over 200 keys: about 800 candidate pairs (the distinct count is a
        // HyperLogLog estimate), for a join of any type.
        for (join <- Seq("JOIN", "LEFT JOIN")) {
          val q = s"SELECT x.id, y.id FROM keyed_stats x $join keyed_stats y " +
            "ON x.k = y.k AND x.t BETWEEN y.t - 2 AND y.t + 2"
          withConf(RangeJoinConf.KeyedMinCandidatePairs.key -> "1000")(checkOperator(q, None))
          withConf(RangeJoinConf.KeyedMinCandidatePairs.key -> "600") {
            checkOperator(q, Some("SlidingWindowJoin"))
          }
        }
        // Without distinct counts the keyed rung does not apply.
        withConf(RangeJoinConf.KeyedMinCandidatePairs.key -> "1000") {
          checkOperator(
            "SELECT x.id, y.id FROM range(400) x JOIN range(400) y " +
              "ON x.id % 200 = y.id % 200 AND x.id BETWEEN y.id - 2 AND y.id + 2",
            Some("SlidingWindowJoin")
          )
        }
      } finally spark.sql("DROP TABLE IF EXISTS keyed_stats")
    }
  }

  test("hints that adaptive execution adds when it re-plans do not turn the operator off") {
    // One key value: 1 of 8 shuffle partitions is non-empty, so adaptive execution re-plans the
    // join with a NO_BROADCAST_HASH hint
    // (spark.sql.adaptive.nonEmptyPartitionRatioForBroadcastJoin).
    spark.range(
      0,
      300
    ).selectExpr("id", "id DIV 1000 AS k", "id % 50 AS t").createOrReplaceTempView("one")
    val q =
      "SELECT x.id, y.id FROM one x JOIN one y ON x.k = y.k AND x.t BETWEEN y.t - 1 AND y.t + 1"
    checkOperator(q, Some("SlidingWindowJoin"))
  }
}
