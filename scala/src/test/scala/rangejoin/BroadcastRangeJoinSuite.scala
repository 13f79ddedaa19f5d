package rangejoin

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.optimizer.{BuildLeft, BuildRight, BuildSide}
import org.apache.spark.sql.execution.{FilterExec, SparkPlan}
import org.apache.spark.sql.execution.aggregate.HashAggregateExec
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types.DataType

import rangejoin.config.RangeJoinConf
import rangejoin.execution.{BroadcastRangeJoinExec, JoinMetric}
import rangejoin.execution.broadcast.{StableBroadcastExchangeExec, StableBroadcasts}
import rangejoin.execution.blocks.{KeyEncoder, LongKeyEncoder}

/**
 * BroadcastRangeJoinExec against vanilla Spark: the differential harness's queries with the
 * broadcast join on, whole-stage codegen on and off, point-in-interval joins of every join type
 * it runs, and the same over doubles with NULL, NaN and -0.0. With whole-stage codegen on, every
 * broadcast range join must sit in a generated stage, and a stage that fails to compile fails
 * the query (no fallback): the generated probe is what ran.
 */
class BroadcastRangeJoinSuite extends RangeJoinTestBase {

  /** The broadcast join on, for an input of any size below Spark's broadcast threshold. */
  private def broadcastOn[T](body: => T): T =
    withConf(
      RangeJoinConf.BroadcastEnabled.key -> "true",
      RangeJoinConf.BroadcastMaxRowsRatio.key -> "1e9"
    )(body)

  /** Keys of this type can be indexed: they have fixed-width codes. */
  private def indexable(dt: DataType) = KeyEncoder.forType(dt).isInstanceOf[LongKeyEncoder]

  /**
   * The operator a harness query plans with the broadcast join on: every input is small, so a
   * block join becomes a broadcast join unless it is a full outer join or its keys have no
   * fixed-width codes.
   */
  private def expectedOperator(q: DifferentialHarness.Query): String = q.operator match {
    case "IEJoin" | "PiecewiseMergeJoin"
        if !q.sql.contains(" FULL JOIN ") && indexable(q.dataType) =>
      "BroadcastRangeJoin"
    case other => other
  }

  /**
   * Asserts that the broadcast range joins of an executed `plan` sit in whole-stage codegen
   * stages exactly when whole-stage codegen is `on`; returns the stages that hold one.
   */
  private def checkCodegen(plan: SparkPlan, on: Boolean): Seq[Seq[SparkPlan]] = {
    val joins = collect(plan) { case j: BroadcastRangeJoinExec => j }
    val withJoin = generatedStages(plan).filter(_.exists(_.isInstanceOf[BroadcastRangeJoinExec]))
    val generated = withJoin.flatten.collect { case j: BroadcastRangeJoinExec => j }
    assert(joins.nonEmpty, plan)
    assert(generated.size == (if (on) joins.size else 0), s"whole-stage codegen $on:\n$plan")
    withJoin
  }

  // 60 seeds for each codegen setting; `make fuzz` splits its count between the two.
  private val random =
    RandomQueries.fromEnv(count = 60, firstSeed = 5000L, fuzzShare = 0.5, fuzzSeedOffset = 4000L)

  for (wholeStage <- Seq(true, false)) {
    test(s"random queries match vanilla Spark (whole-stage codegen $wholeStage, ANSI on and off)") {
      val counts = scala.collection.mutable.Map.empty[String, Int].withDefaultValue(0)
      broadcastOn {
        wholeStageCodegen(wholeStage) {
          for (seed <- random.seeds) {
            val ansi = seed % 2 == 0
            withConf(SQLConf.ANSI_ENABLED.key -> ansi.toString) {
              val q = DifferentialHarness.query(spark, seed)
              val operator = expectedOperator(q)
              withClue(s"seed $seed (ANSI $ansi, ${q.dataType.simpleString}): ${q.sql}\n") {
                val (_, plan) = checkOperatorPlan(q.sql, Some(operator))
                if (operator == "BroadcastRangeJoin") checkCodegen(plan, wholeStage)
              }
              counts(operator) += 1
            }
          }
        }
      }
      info(counts.toSeq.sorted.mkString(", "))
      assert(counts("BroadcastRangeJoin") > random.count / 3) // most others have equality keys
    }
  }

  private def setUp(): Unit = {
    // Points, and disjoint ranges [lo, hi) with a few NULL ends; 10 and 40 ranges.
    spark
      .range(0, 3000)
      .selectExpr("id", "IF(id % 97 = 0, NULL, (id * 7919) % 5000) AS v")
      .createOrReplaceTempView("points")
    for ((name, n) <- Seq("ranges" -> 40, "few" -> 10)) {
      spark
        .range(0, n)
        .selectExpr(
          "id AS rid",
          s"id * ${5000 / n} AS lo",
          s"IF(id = 3, NULL, id * ${5000 / n} + ${5000 / n / 2}) AS hi"
        )
        .createOrReplaceTempView(name)
    }
  }

  test(
    "points in ranges, every join type it runs, with the broadcast input as Spark would pick",
    EveryLine
  ) {
    setUp()
    val on = "p.v >= r.lo AND p.v < r.hi"
    val queries = Seq(
      s"SELECT p.id, r.rid FROM points p JOIN ranges r ON $on" -> BuildRight,
      s"SELECT p.id, r.rid FROM ranges r JOIN points p ON $on" -> BuildLeft,
      s"SELECT p.id, r.rid FROM points p LEFT JOIN ranges r ON $on" -> BuildRight,
      s"SELECT p.id, r.rid FROM ranges r RIGHT JOIN points p ON $on" -> BuildLeft,
      s"SELECT p.id FROM points p LEFT SEMI JOIN ranges r ON $on" -> BuildRight,
      s"SELECT p.id FROM points p LEFT ANTI JOIN ranges r ON $on" -> BuildRight,
      s"SELECT p.id FROM points p WHERE p.id % 5 = 0 OR EXISTS (SELECT 1 FROM few r WHERE $on)" ->
        BuildRight,
      s"SELECT r.rid, max(p.id) FROM points p JOIN few r ON $on AND p.id % 3 <> 0 GROUP BY r.rid" ->
        BuildRight,
      "SELECT p.id, r.rid FROM points p JOIN few r ON p.v BETWEEN r.lo - 7 AND r.hi + 7" ->
        BuildRight,
      "SELECT p.id, r.rid FROM points p LEFT JOIN few r ON p.v > r.lo AND p.id < r.hi " +
        "AND p.v < r.rid * 600" -> BuildRight
    )
    checkBroadcastJoins(queries.map { case (q, side) => (q, side, false) })
  }

  /**
   * Checks each query against vanilla Spark with whole-stage codegen on and off: it plans one
   * broadcast range join that broadcasts `side`, which runs in a generated stage exactly when
   * codegen is on, with the aggregate or filter above it in the same stage; when `countsRows`
   * (the join's rows are the query's), the join's numOutputRows metric counts them.
   */
  private def checkBroadcastJoins(queries: Seq[(String, BuildSide, Boolean)]): Unit =
    broadcastOn {
      for ((q, side, countsRows) <- queries; wholeStage <- Seq(true, false)) {
        wholeStageCodegen(wholeStage) {
          withClue(s"$q (whole-stage codegen $wholeStage)\n") {
            val (rows, plan) = checkOperatorPlan(q, Some("BroadcastRangeJoin"))
            assert(rows > 0)
            val joins = collect(plan) { case j: BroadcastRangeJoinExec => j }
            assert(joins.map(_.buildSide) == Seq(side))
            val stage = checkCodegen(plan, wholeStage).flatten
            if (wholeStage && q.contains("GROUP BY"))
              assert(stage.exists(_.isInstanceOf[HashAggregateExec]), plan)
            if (wholeStage && q.contains(") WHERE "))
              assert(stage.exists(_.isInstanceOf[FilterExec]), plan)
            if (countsRows) assert(joins.head.metrics("numOutputRows").value == rows)
          }
        }
      }
    }

  /** Doubles with NULL, NaN, -0.0, 0.0 and infinities, as points and as range ends. */
  private def setUpDoubles(): Unit = {
    val session = spark
    import session.implicits._
    spark
      .range(0, 600)
      .selectExpr(
        "id",
        "id % 7 AS g",
        """CASE id % 13
          |  WHEN 0 THEN NULL
          |  WHEN 1 THEN CAST('NaN' AS DOUBLE)
          |  WHEN 2 THEN -0.0D
          |  WHEN 3 THEN 0.0D
          |  WHEN 4 THEN CAST('Infinity' AS DOUBLE)
          |  WHEN 5 THEN CAST('-Infinity' AS DOUBLE)
          |  ELSE (id % 41) / 4.0D - 5.0D
          |END AS v""".stripMargin
      )
      .createOrReplaceTempView("dpoints")
    val (nan, inf) = (Double.NaN, Double.PositiveInfinity)
    Seq[(Long, Option[Double], Option[Double])](
      (0, Some(-0.0), Some(0.0)),
      (1, Some(0.0), Some(nan)),
      (2, None, Some(5.0)),
      (3, Some(-inf), Some(-0.0)),
      (4, Some(nan), Some(nan)),
      (5, Some(-2.5), Some(2.5)),
      (6, Some(3.0), None),
      (7, Some(1.5), Some(1.5)),
      (8, Some(-5.0), Some(inf)),
      (9, Some(inf), Some(nan)),
      (10, Some(0.25), Some(4.75)),
      (11, Some(-0.0), Some(-0.0))
    ).toDF("rid", "lo", "hi").createOrReplaceTempView("dranges")
  }

  test(
    "generated probe: every join type, residuals, NULL keys, NaN and -0.0, consumers above",
    EveryLine
  ) {
    setUp()
    setUpDoubles()
    val on = "p.v >= r.lo AND p.v < r.hi"
    def days(c: String) = s"DATE_ADD(DATE'2024-01-01', CAST($c AS INT))"
    def dec(c: String) = s"CAST($c AS DECIMAL(9, 1))"
    checkBroadcastJoins(
      Seq(
        // Inner, either input broadcast; one to three inequalities; residuals; a computed key.
        (
          "SELECT p.id, p.v, r.rid FROM dpoints p JOIN dranges r " +
            "ON p.v >= r.lo AND p.v <= r.hi AND (p.id + r.rid) % 3 <> 0",
          BuildRight,
          true
        ),
        (
          "SELECT p.id, r.rid, r.lo FROM dranges r JOIN dpoints p " +
            "ON p.v > r.lo AND p.v < r.hi AND p.g > r.rid % 5",
          BuildLeft,
          true
        ),
        (
          "SELECT p.id, r.rid FROM dpoints p JOIN dranges r " +
            "ON p.v * 2 <= r.hi AND p.id % 4 <> r.rid % 4",
          BuildRight,
          true
        ),
        // Outer: unmatched rows NULL-padded, NULL keys included.
        (
          s"SELECT p.id, p.v, r.rid, r.hi FROM dpoints p LEFT JOIN dranges r " +
            s"ON $on AND p.g <> r.rid % 7",
          BuildRight,
          true
        ),
        (
          "SELECT p.id, r.rid, r.lo FROM dranges r RIGHT JOIN dpoints p " +
            "ON r.lo <= p.v AND r.hi >= p.v AND (p.id + r.rid) % 2 = 0",
          BuildLeft,
          true
        ),
        // Semi, anti, existence: the first pair that passes decides.
        (
          "SELECT p.* FROM dpoints p LEFT SEMI JOIN dranges r " +
            "ON p.v > r.lo AND p.v <= r.hi AND p.g < r.rid",
          BuildRight,
          true
        ),
        (
          s"SELECT p.* FROM dpoints p LEFT ANTI JOIN dranges r ON $on AND (p.id + r.rid) % 3 <> 0",
          BuildRight,
          true
        ),
        (
          "SELECT p.id, p.v FROM dpoints p WHERE p.g = 0 OR EXISTS " +
            "(SELECT 1 FROM dranges r WHERE p.v >= r.lo AND p.v <= r.hi AND r.rid <> p.g)",
          BuildRight,
          false
        ),
        // Consumers in the join's stage: a filter above an outer join, aggregates.
        (
          s"SELECT * FROM (SELECT p.id, r.rid FROM dpoints p LEFT JOIN dranges r ON $on) " +
            "WHERE rid IS NULL OR id % 2 = 0",
          BuildRight,
          false
        ),
        (
          s"SELECT r.rid, count(*), sum(p.id) FROM dpoints p JOIN dranges r ON $on GROUP BY r.rid",
          BuildRight,
          false
        ),
        (
          s"SELECT r.rid, count(*) FROM dpoints p LEFT JOIN dranges r ON $on GROUP BY r.rid",
          BuildRight,
          false
        ),
        // Date and decimal keys.
        (
          s"SELECT p.id, r.rid FROM points p JOIN ranges r " +
            s"ON ${days("p.v")} >= ${days("r.lo")} AND ${days("p.v")} < ${days("r.hi")}",
          BuildRight,
          true
        ),
        (
          s"SELECT p.id, r.rid FROM points p LEFT JOIN ranges r " +
            s"ON ${dec("p.v")} > ${dec("r.lo")} AND ${dec("p.v")} <= ${dec("r.hi")}",
          BuildRight,
          true
        )
      )
    )
  }

  test(
    "EXPLAIN names the index and the broadcast input; a large input is not broadcast",
    EveryLine
  ) {
    setUp()
    val q = "SELECT p.id, r.rid FROM points p LEFT JOIN ranges r ON p.v >= r.lo AND p.v < r.hi"
    broadcastOn {
      val text = spark.sql(s"EXPLAIN $q").collect().head.getString(0)
      assert(
        text.contains(
          "BroadcastRangeJoin LeftOuter, [p.v >= r.lo, p.v < r.hi], " +
            "index on p.v >= r.lo AND p.v < r.hi, build right"
        ),
        text
      )
      val formatted = spark.sql(s"EXPLAIN FORMATTED $q").collect().head.getString(0)
      Seq(
        "BroadcastRangeJoin LeftOuter (",
        "Inequalities: [p.v >= r.lo, p.v < r.hi]",
        "Index on: p.v >= r.lo AND p.v < r.hi",
        "Build side: BuildRight"
      ).foreach(line => assert(formatted.contains(line), formatted))
      withConf("spark.sql.autoBroadcastJoinThreshold" -> "-1") {
        checkOperator(q, Some("IEJoin"))
      }
      // Full outer joins preserve both inputs: never broadcast.
      checkOperator(q.replace("LEFT JOIN", "FULL JOIN"), Some("IEJoin"))
    }
  }

  test(
    "a BROADCAST hint picks the input to broadcast; one the join cannot build goes to Spark",
    EveryLine
  ) {
    setUp()
    val on = "p.v >= r.lo AND p.v < r.hi"
    broadcastOn {
      withConf("spark.sql.autoBroadcastJoinThreshold" -> "-1") {
        checkBroadcastJoins(
          Seq(
            (
              s"SELECT /*+ BROADCAST(r) */ p.id, r.rid FROM points p JOIN ranges r ON $on",
              BuildRight,
              false
            ),
            (
              s"SELECT /*+ BROADCAST(p) */ p.id, r.rid FROM points p JOIN ranges r ON $on",
              BuildLeft,
              false
            ),
            (
              s"SELECT /*+ BROADCAST(r, p) */ p.id, r.rid FROM points p LEFT JOIN ranges r ON $on",
              BuildRight,
              false
            )
          )
        )
        val toSpark = Seq(
          s"SELECT /*+ BROADCAST(p) */ p.id, r.rid FROM points p LEFT JOIN ranges r ON $on",
          s"SELECT /*+ BROADCAST(r) */ p.id, r.rid FROM points p FULL JOIN ranges r ON $on",
          s"SELECT /*+ BROADCAST(r) */ p.id FROM points p JOIN ranges r ON p.id = r.rid AND $on",
          s"SELECT /*+ BROADCAST(r) */ p.id, r.rid FROM points p JOIN ranges r " +
            "ON string(p.v) >= string(r.lo) AND string(p.v) < string(r.hi)"
        )
        toSpark.foreach(checkOperator(_, None))
      }
    }
    // The broadcast join switched off: a hinted join is Spark's, not a block join.
    checkOperator(
      s"SELECT /*+ BROADCAST(r) */ p.id, r.rid FROM points p JOIN ranges r ON $on",
      None
    )
  }

  test(
    "a cached build input is broadcast once for repeated queries; new data is never reused",
    EveryLine
  ) {
    setUp()
    val dir = java.nio.file.Files.createTempDirectory("rangejoin-cached").toString
    def writeRanges(width: Int) = spark
      .range(0, 40)
      .selectExpr("id AS rid", "id * 125 AS lo", s"id * 125 + $width AS hi")
      .write
      .mode("overwrite")
      .parquet(dir)
    val q =
      "SELECT p.id, r.rid FROM points p LEFT JOIN cached_ranges r ON p.v >= r.lo AND p.v < r.hi"

    /** Runs `q`: its rows, and the indexes its broadcast range join built. */
    def run(): (Seq[String], Long) = {
      val df = spark.sql(q)
      val rows = multiset(df)
      val builds = collect(df.queryExecution.executedPlan) { case j: BroadcastRangeJoinExec =>
        j.metrics(JoinMetric.IndexBuilds.key).value
      }
      assert(builds.size == 1, df.queryExecution.executedPlan)
      (rows, builds.head)
    }
    def vanilla = withConf(RangeJoinConf.Enabled.key -> "false")(multiset(spark.sql(q)))

    for (adaptive <- Seq("true", "false")) {
      withConf("spark.sql.adaptive.enabled" -> adaptive) {
        broadcastOn {
          writeRanges(60)
          val cached = spark.read.parquet(dir).cache()
          cached.createOrReplaceTempView("cached_ranges")
          try {
            val first = run()
            assert(first._1 == vanilla && first._2 == 1, s"adaptive $adaptive")
            assert(run() == ((first._1, 0L)), s"adaptive $adaptive: the second run reuses")
            // The files change and the cache is refreshed: a new cached RDD, broadcast again.
            writeRanges(100)
            spark.catalog.refreshByPath(dir)
            val refreshed = run()
            assert(refreshed._1 == vanilla && refreshed._1 != first._1, s"adaptive $adaptive")
            assert(refreshed._2 == 1, s"adaptive $adaptive: refreshed data is indexed again")
          } finally cached.unpersist()
        }
      }
    }
  }

  test("at most four broadcasts are kept, the least recently used dropped first") {
    setUp()
    val capacity = StableBroadcasts.Capacity
    // Cached build inputs, each its own kept broadcast: one more than are kept.
    val caches = (0 to capacity).map { i =>
      val cached = spark.table("ranges").where(s"rid <> $i").cache()
      cached.createOrReplaceTempView(s"kept_$i")
      cached
    }

    /** The id of the broadcast that the join with input `i` reads. */
    def broadcastId(i: Int): Long = {
      val q = s"SELECT p.id, r.rid FROM points p JOIN kept_$i r ON p.v >= r.lo AND p.v < r.hi"
      collect(spark.sql(q).queryExecution.executedPlan) { case e: StableBroadcastExchangeExec =>
        e.executeBroadcast[Any]().id
      }.head
    }
    withConf("spark.sql.adaptive.enabled" -> "false") {
      broadcastOn {
        try {
          val first = (0 until capacity).map(broadcastId)
          assert(first.distinct.size == capacity)
          // Input 0 is used again, so input 1 becomes the least recently used, dropped by input 4.
          assert(broadcastId(0) == first(0))
          val last = broadcastId(capacity)
          assert(!first.contains(last))
          assert(broadcastId(1) != first(1), "the least recently used is broadcast anew")
          // That drops input 2; inputs 0, 3 and 4 are still kept.
          assert(broadcastId(0) == first(0) && broadcastId(3) == first(3))
          assert(broadcastId(capacity) == last)
          assert(broadcastId(2) != first(2))
        } finally caches.foreach(_.unpersist())
      }
    }
  }

  test("a kept broadcast is found whichever thread runs the exchange, with or without a session") {
    // The exchange may run on one of Spark's broadcast threads, whose active session can be
    // another one or none: the kept broadcast belongs to the exchange's own SparkContext.
    setUp()
    val q = "SELECT p.id, r.rid FROM points p LEFT JOIN kept_ranges r ON p.v >= r.lo AND p.v < r.hi"
    def exchange() = collect(spark.sql(q).queryExecution.executedPlan) {
      case e: StableBroadcastExchangeExec => e
    }.head
    withConf("spark.sql.adaptive.enabled" -> "false") {
      broadcastOn {
        val cached = spark.table("ranges").cache()
        cached.createOrReplaceTempView("kept_ranges")
        try {
          val kept = exchange().executeBroadcast[Any]().id
          val planned = exchange() // planned here, run where no session is active
          var again: scala.util.Try[Long] = null
          val thread = new Thread(() => {
            SparkSession.clearActiveSession()
            again = scala.util.Try(planned.executeBroadcast[Any]().id)
          })
          thread.start()
          thread.join()
          assert(again.get == kept)
        } finally cached.unpersist()
      }
    }
  }
}
