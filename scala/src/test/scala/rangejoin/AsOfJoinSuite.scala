package rangejoin

import scala.util.Random

import org.apache.spark.sql.{Column, DataFrame}
import org.apache.spark.sql.catalyst.plans.logical.AsOfJoin
import org.apache.spark.sql.catalyst.plans.physical.HashPartitioning
import org.apache.spark.sql.execution.ProjectExec
import org.apache.spark.sql.execution.exchange.ReusedExchangeExec
import org.apache.spark.sql.execution.rangejoin.AsOfJoins
import org.apache.spark.sql.functions.{abs, col, expr, lit}
import org.apache.spark.sql.internal.SQLConf

import rangejoin.config.RangeJoinConf
import rangejoin.execution.{AsOfJoinExec, JoinMetric}
import rangejoin.execution.keyed.ProbeBatches

/**
 * Spark's as-of join (`joinAsOf`) runs as [[AsOfJoinExec]] and answers as Spark's own rewrite:
 * every direction, exact matches allowed or not, with and without a tolerance, inner and left
 * outer, equality keys or none, a further condition, NULL keys and as-of values, integers, dates
 * and timestamps, ANSI on and off, and values where Spark's arithmetic wraps.
 *
 * Spark picks any one of several right rows at the same distance, so the random right tables
 * have distinct as-of values, all multiples of 4; nearest joins, which can also tie
 * across the two sides, compare the distance they found where left values may be even, and
 * whole rows where they are odd.
 */
class AsOfJoinSuite extends RangeJoinTestBase {

  private val asOfTypes = Seq("int", "bigint", "date", "timestamp")

  /** `v` (a small integer) as a value of `asOfType`. */
  private def asType(v: String, asOfType: String): String = asOfType match {
    case "date" => s"date_add(DATE'2024-01-01', $v)"
    case "timestamp" => s"timestamp_seconds(1700000000 + $v)"
    case t => s"CAST($v AS $t)"
  }

  /** Tolerance 7 in `asOfType`'s units. */
  private def tolerance(asOfType: String): Column = asOfType match {
    case "date" => expr("INTERVAL 7 DAYS")
    case "timestamp" => expr("INTERVAL 7 SECONDS")
    case t => expr(s"CAST(7 AS $t)")
  }

  /**
   * Left rows (`id`, key `k`, as-of `t`) and right rows (`rid`, `rk`, `rt`, `q`); a tenth of
   * keys and as-of values NULL. Right as-of values are distinct and multiples of 4; left ones
   * odd when `oddLeft`.
   */
  private def tables(asOfType: String, seed: Long, oddLeft: Boolean): (DataFrame, DataFrame) = {
    val rnd = new Random(seed)
    def nullOr(p: Double, v: => String) = if (rnd.nextDouble() < p) "NULL" else v
    val lefts = (0 until 120).map { id =>
      val t = rnd.nextInt(800) / (if (oddLeft) 2 else 1) * (if (oddLeft) 2 else 1) + (if (oddLeft) 1
                                                                                      else 0)
      (id, nullOr(0.1, rnd.nextInt(5).toString), nullOr(0.1, t.toString))
    }
    val rights = rnd.shuffle((0 until 200).toList).take(100 + rnd.nextInt(60)).zipWithIndex.map {
      case (v, rid) =>
        (rid, nullOr(0.1, rnd.nextInt(5).toString), nullOr(0.1, (v * 4).toString), rnd.nextInt(10))
    }
    def view(rows: Seq[String], columns: String) =
      spark.sql(s"SELECT * FROM VALUES ${rows.mkString(", ")} AS v($columns)")
    val left = view(
      lefts.map { case (id, k, t) => s"($id, CAST($k AS INT), ${asType(t, asOfType)})" },
      "id, k, t"
    )
    val right = view(
      rights.map { case (rid, k, t, q) =>
        s"($rid, CAST($k AS INT), ${asType(t, asOfType)}, CAST($q AS DOUBLE) / 10)"
      },
      "rid, rk, rt, q"
    )
    (left, right)
  }

  /** One as-of join of the random tables (not `final`: Scala 2.12 warns on its type tests). */
  private case class Query(
      asOfType: String,
      seed: Long,
      direction: String,
      exact: Boolean,
      withTolerance: Boolean,
      how: String,
      keyed: Boolean,
      residual: Boolean,
      keptColumns: Seq[String] = Nil
  ) {
    private def oddLeft = direction == "nearest" && seed % 2 == 0

    def run(): DataFrame = {
      val (l, r) = tables(asOfType, seed, oddLeft)
      val keys = if (keyed) l("k") === r("rk") else lit(true)
      val on = if (residual) keys && r("q") > 0.3 else keys
      val joined = AsOfJoins.joinAsOf(
        l,
        r,
        l("t"),
        r("rt"),
        on,
        how,
        if (withTolerance) tolerance(asOfType) else null,
        exact,
        direction
      )
      if (direction == "nearest" && !oddLeft) {
        // Ties across the sides: compare the distance found, not the row.
        val distance = asOfType match {
          case "date" => expr("datediff(t, rt)")
          case "timestamp" => expr("unix_seconds(t) - unix_seconds(rt)")
          case _ => col("t") - col("rt")
        }
        joined.select(col("id"), abs(distance).as("distance"), col("rid").isNull.as("unmatched"))
      } else if (keptColumns.nonEmpty) joined.select(keptColumns.map(col): _*)
      else joined
    }
  }

  /** The random query of `seed`, on the random tables of `seed`. */
  private def randomQuery(seed: Long): Query = {
    val rnd = new Random(seed * 0x9e3779b97f4a7c15L)
    Query(
      asOfTypes(rnd.nextInt(asOfTypes.size)),
      seed,
      Seq("backward", "forward", "nearest")(rnd.nextInt(3)),
      rnd.nextBoolean(),
      rnd.nextBoolean(),
      Seq("inner", "left")(rnd.nextInt(2)),
      keyed = rnd.nextInt(4) != 0,
      residual = rnd.nextInt(3) == 0,
      // A third keep two columns, which the join then writes alone (not the nearest joins that
      // compare distances, which compute theirs).
      keptColumns = if (seed % 3 == 0) Seq("rid", "id") else Nil
    )
  }

  /**
   * Asserts `query` runs as AsOfJoinExec (`broadcast` or not) with the vanilla answer; returns its
   * rows and the rows its indexes sorted.
   */
  private def check(query: Query, broadcast: Option[Boolean]): Checked = {
    val df = query.run()
    val actual = multiset(df)
    val plan = df.queryExecution.executedPlan
    val joins = collect(plan) { case j: AsOfJoinExec => j }
    assert(joins.map(_.broadcast) == broadcast.toSeq, s"$query\n$plan")
    def metric(j: AsOfJoinExec, m: JoinMetric) = j.metrics(m.key).value
    // Broadcast, the driver sorted the right rows: the executor indexes them as they are.
    for (j <- joins if j.broadcast) {
      assert(metric(j, JoinMetric.IndexBuilds) >= 1, s"$query\n$plan")
      assert(metric(j, JoinMetric.IndexRowsSorted) == 0, s"$query\n$plan")
    }
    val expected = withConf(RangeJoinConf.Enabled.key -> "false") {
      val vanilla = query.run()
      assert(collect(vanilla.queryExecution.executedPlan) { case j: AsOfJoinExec => j }.isEmpty)
      multiset(vanilla)
    }
    assert(actual == expected, s"$query\nplan:\n$plan")
    Checked(actual.size, joins.map(metric(_, JoinMetric.IndexRowsSorted)).sum)
  }

  private case class Checked(rows: Int, rowsSorted: Long)

  /** 48 random queries; `make fuzz` runs a tenth of its count, each query costing more. */
  private val random = RandomQueries.fromEnv(count = 48, firstSeed = 0L, fuzzShare = 0.1)

  test(
    s"${random.count} random as-of joins answer as Spark's rewrite, broadcast and " +
      "hash-partitioned, the seeds taking the ANSI and codegen modes in turn"
  ) {
    var rows = 0
    var shuffledRowsSorted = 0L
    for (seed <- random.seeds) {
      val query = randomQuery(seed)
      val shuffled = seed % 2 == 1 && query.keyed
      val threshold = if (shuffled) "-1" else "10485760"
      val mode = SessionMode.of(seed)
      withConf(mode.confs :+ (SQLConf.AUTO_BROADCASTJOIN_THRESHOLD.key -> threshold): _*) {
        withClue(s"seed $seed ($mode): ") {
          val checked = check(query, Some(!shuffled))
          rows += checked.rows
          if (shuffled) shuffledRowsSorted += checked.rowsSorted
        }
      }
    }
    assert(rows > 30 * random.count, rows)
    // The right rows arrive from the shuffle in no order: hash-partitioned tasks sort them.
    if (random.seeds.exists(s => s % 2 == 1 && randomQuery(s).keyed)) {
      assert(shuffledRowsSorted > 0)
    }
  }

  test("an as-of join writes only the columns a projection above it keeps") {
    for (broadcast <- Seq(true, false)) withConf(
      SQLConf.AUTO_BROADCASTJOIN_THRESHOLD.key -> (if (broadcast) "10485760" else "-1")
    ) {
      // The second keeps the left key, on which the partitioned join's left input is clustered.
      for (kept <- Seq(Seq("rid", "t"), Seq("k", "rid"))) {
        val query = Query(
          "bigint",
          13,
          "backward",
          exact = true,
          withTolerance = true,
          "left",
          keyed = true,
          residual = true,
          kept
        )
        check(query, Some(broadcast))
        val plan = query.run().queryExecution.executedPlan
        val join = collect(plan) { case j: AsOfJoinExec => j }.head
        val columns = kept.map("v." + _)
        assert(join.output.map(_.sql) == columns)
        assert(collect(plan) { case p: ProjectExec if p.find(_ eq join).isDefined => p }.isEmpty)
        assert(
          plan.toString.contains(
            s"output: only the columns read above ${columns.mkString("[", ", ", "]")}"
          ),
          plan
        )
        val clustered = join.outputPartitioning.isInstanceOf[HashPartitioning]
        assert(clustered == (!broadcast && kept.contains("k")), join.outputPartitioning)
      }
    }
  }

  test("whole-stage codegen off and interpreted expressions give the same answers", EveryLine) {
    withConf(
      SQLConf.WHOLESTAGE_CODEGEN_ENABLED.key -> "false",
      SQLConf.CODEGEN_FACTORY_MODE.key -> "NO_CODEGEN"
    ) {
      for (seed <- 100L until 108) check(randomQuery(seed), Some(true))
    }
  }

  test("without equality keys, a right input too large to broadcast stays with Spark") {
    withConf(SQLConf.AUTO_BROADCASTJOIN_THRESHOLD.key -> "-1") {
      val query = Query(
        "bigint",
        3,
        "backward",
        exact = true,
        withTolerance = false,
        "left",
        keyed = false,
        residual = false
      )
      check(query, None)
      val analyzed = query.run().queryExecution.analyzed
      assert(analyzed.collect { case j: AsOfJoin => j }.size == 1, analyzed)
    }
  }

  test("spark.rangejoin.asOfJoin.enabled=false leaves as-of joins to Spark") {
    withConf(RangeJoinConf.AsOfJoinEnabled.key -> "false") {
      check(
        Query(
          "int",
          5,
          "forward",
          exact = false,
          withTolerance = true,
          "inner",
          keyed = true,
          residual = false
        ),
        None
      )
    }
  }

  test(
    "the analyzer rule passes Spark's test-mode check: it transforms no analyzed subtree",
    EveryLine
  ) {
    // With spark.testing set, Spark fails an analyzer rule that transforms a plan outside
    // resolveOperators* ("This method should not be called in the analyzer"), as in Spark's
    // own test suites run with the plugin installed.
    val previous = Option(System.getProperty("spark.testing"))
    System.setProperty("spark.testing", "true")
    try
      check(
        Query(
          "int",
          7,
          "backward",
          exact = true,
          withTolerance = false,
          "inner",
          keyed = true,
          residual = false
        ),
        Some(true)
      )
    finally previous match {
        case Some(v) => System.setProperty("spark.testing", v)
        case None => System.clearProperty("spark.testing")
      }
  }

  test("a plan executed outside a SQL execution runs: metrics are taken on the driver", EveryLine) {
    // Executing the physical plan directly (as Spark's own tests do through df.rdd) starts the
    // job without a SQL execution: nothing on the driver made the node's metrics before the
    // tasks ran, and a task's copy of the node has no session to make them from.
    for (broadcast <- Seq("10485760", "-1")) {
      withConf(
        SQLConf.AUTO_BROADCASTJOIN_THRESHOLD.key -> broadcast,
        SQLConf.ADAPTIVE_EXECUTION_ENABLED.key -> "false"
      ) {
        val query = Query(
          "bigint",
          11,
          "nearest",
          exact = true,
          withTolerance = true,
          "left",
          keyed = true,
          residual = true
        )
        val expected = withConf(RangeJoinConf.Enabled.key -> "false")(query.run().count())
        assert(query.run().queryExecution.executedPlan.execute().count() == expected)
      }
    }
  }

  test("values where Spark's arithmetic wraps are searched in full, with Spark's answer") {
    // With ANSI off, t - rt wraps around for values far apart: Spark's min_by then prefers a
    // "negative" distance. Such left rows take the full search, which evaluates Spark's own
    // distance and so gives the same answer.
    withConf(SQLConf.ANSI_ENABLED.key -> "false") {
      for (typ <- Seq("int", "bigint"); direction <- Seq("backward", "forward", "nearest")) {
        val (min, max) = if (typ == "int") (Int.MinValue.toLong, Int.MaxValue.toLong)
        else (Long.MinValue, Long.MaxValue)
        val l = spark.sql(s"SELECT * FROM VALUES (1, CAST(${max - 1} AS $typ)), " +
          s"(2, CAST(${min + 2} AS $typ)), (3, CAST(0 AS $typ)), (4, CAST(10 AS $typ)) AS l(id, t)")
        val r = spark.sql(s"SELECT * FROM VALUES (1, CAST(${min + 1} AS $typ)), " +
          s"(2, CAST(${max - 3} AS $typ)), (3, CAST(3 AS $typ)), (4, CAST(-4 AS $typ)) AS r(rid, rt)")
        def run() =
          AsOfJoins.joinAsOf(l, r, l("t"), r("rt"), lit(true), "left", null, true, direction)
        val df = run()
        val actual = multiset(df)
        val exec = collect(df.queryExecution.executedPlan) { case j: AsOfJoinExec => j }
        assert(exec.size == 1)
        assert(exec.head.metrics(JoinMetric.FullSearches.key).value > 0)
        val expected = withConf(RangeJoinConf.Enabled.key -> "false")(multiset(run()))
        assert(actual == expected, s"$typ $direction")
      }
    }
  }

  test("a right as-of value that fails only on rows with a NULL key fails neither join") {
    // Under ANSI, rt + 1 overflows on the right rows whose key is NULL, which no left row can
    // match: Spark never evaluates it on them, and neither does the broadcast's sort.
    withConf(SQLConf.ANSI_ENABLED.key -> "true") {
      val l = spark.sql("SELECT * FROM VALUES (1, 1, 5L), (2, 2, 9L), (3, NULL, 7L) AS l(id, k, t)")
      val r = spark.sql(
        s"SELECT * FROM VALUES (1, 1, 3L), (2, 2, 8L), (3, NULL, ${Long.MaxValue}L), " +
          "(4, 1, 4L) AS r(rid, rk, rt)"
      )
      def run() = AsOfJoins
        .joinAsOf(l, r, l("t"), r("rt") + 1, l("k") === r("rk"), "left", null, true, "backward")
      for (threshold <- Seq("10m", "-1")) withConf(
        SQLConf.AUTO_BROADCASTJOIN_THRESHOLD.key -> threshold
      ) {
        val df = run()
        val exec = collect(df.queryExecution.executedPlan) { case j: AsOfJoinExec => j }
        assert(exec.map(_.broadcast) == Seq(threshold != "-1"))
        val expected = withConf(RangeJoinConf.Enabled.key -> "false")(multiset(run()))
        assert(multiset(df) == expected, threshold)
        assert(expected.size == 3)
      }
    }
  }

  test("left inputs of several probe batches answer as Spark's rewrite", EveryLine) {
    // One task reads them all, so that it fills a batch and starts another.
    val n = ProbeBatches.BatchRows + 4000
    def run() = {
      val l = spark.range(0, n, 1, 1).selectExpr("id", "id % 3 AS k", "(id * 7919) % 5000 AS t")
      val r = spark.range(0, 40).selectExpr("id AS rid", "id % 3 AS rk", "id * 125 AS rt")
      AsOfJoins.joinAsOf(
        l,
        r,
        l("t"),
        r("rt"),
        l("k") === r("rk"),
        "left",
        lit(300L),
        true,
        "backward"
      )
    }
    // Compared by row count and a sum of row hashes: a million rows' strings would be slow.
    def checksum(df: org.apache.spark.sql.DataFrame) =
      df.selectExpr("count(*)", "sum(CAST(hash(*) AS BIGINT))", "count(rid)").collect().toSeq
    val df = run()
    val actual = checksum(df)
    assert(rangeJoins(df.queryExecution.executedPlan) == Seq("AsOfJoin"))
    val expected = withConf(RangeJoinConf.Enabled.key -> "false")(checksum(run()))
    assert(actual == expected)
    assert(actual.head.getLong(0) == n)
  }

  test("a right input of several probe regions, one key larger than a region, answers as Spark") {
    // Right rows of about 650 bytes of index each (the padding is in the output, so it stays in
    // the index's rows): a region holds about 800. Key 0: 1,200 right rows, more than a region,
    // so its left rows find their regions by interpolation; 60 small keys. About 1 MB of index:
    // two regions. Right as-of values distinct, so that no two tie.
    val r = spark
      .range(0, 1500)
      .selectExpr(
        "id AS rid",
        "CASE WHEN id < 1200 THEN 0 ELSE CAST(1 + id % 60 AS INT) END AS rk",
        "id * 4 AS rt",
        "repeat('x', 600) AS pad"
      )
    val l = spark
      .range(0, 600)
      .selectExpr(
        "id",
        "CASE WHEN id % 6 = 0 THEN 0 WHEN id % 43 = 0 THEN NULL " +
          "ELSE CAST(1 + pmod(hash(id, 71), 66) AS INT) END AS k",
        "CASE WHEN id % 47 = 0 THEN NULL ELSE pmod(hash(id, 72), 6200) - 100 END AS t"
      )
    for (direction <- Seq("backward", "forward")) {
      def run() = AsOfJoins
        .joinAsOf(l, r, l("t"), r("rt"), l("k") === r("rk"), "left", null, true, direction)
        .selectExpr("id", "rid", "length(pad)")
      val df = run()
      val actual = multiset(df)
      assert(rangeJoins(df.queryExecution.executedPlan) == Seq("AsOfJoin"))
      val expected = withConf(RangeJoinConf.Enabled.key -> "false")(multiset(run()))
      assert(actual == expected, direction)
      assert(actual.size == 600)
    }
  }

  test("one right input in two as-of joins, its broadcast reused, is indexed once per executor") {
    spark
      .range(0, 600)
      .selectExpr(
        "id",
        "CAST(pmod(hash(id, 81), 20) AS INT) AS k",
        "pmod(hash(id, 82), 5000) AS t",
        "pmod(hash(id, 83), 5000) AS u"
      )
      .createOrReplaceTempView("asof_twice_l")
    spark
      .range(0, 2000)
      .selectExpr(
        "id AS rid",
        "CAST(pmod(hash(id, 84), 20) AS INT) AS rk",
        "4 * pmod(hash(id, 85), 5000) AS rt"
      )
      .createOrReplaceTempView("asof_twice_r")
    // The quotes at two times of each trade: the second broadcast reuses the first.
    def run() = {
      val l = spark.table("asof_twice_l")
      val (a, b) = (spark.table("asof_twice_r").as("a"), spark.table("asof_twice_r").as("b"))
      val once = AsOfJoins
        .joinAsOf(l, a, l("t"), col("a.rt"), l("k") === col("a.rk"), "left", null, true, "backward")
      AsOfJoins
        .joinAsOf(
          once,
          b,
          l("u"),
          col("b.rt"),
          l("k") === col("b.rk"),
          "left",
          null,
          true,
          "backward"
        )
        .select(l("id"), col("a.rid"), col("b.rid"))
    }
    val df = run()
    val actual = multiset(df)
    val plan = df.queryExecution.executedPlan
    assert(rangeJoins(plan) == Seq("AsOfJoin", "AsOfJoin"), plan)
    assert(collect(plan) { case r: ReusedExchangeExec => r }.nonEmpty, s"no reuse in\n$plan")
    val joins = collect(plan) { case j: AsOfJoinExec => j }
    // One executor in local mode: one index for both joins.
    val builds = joins.map(_.metrics(JoinMetric.IndexBuilds.key).value)
    assert(joins.forall(_.broadcast) && builds.sum == 1, s"index builds per join: $builds")
    assert(actual == withConf(RangeJoinConf.Enabled.key -> "false")(multiset(run())))
    assert(actual.size == 600)
  }

  /** Whether this Spark has SQL's `ASOF JOIN ... MATCH_CONDITION` (4.3 on). */
  private def sqlAsOfJoins: Boolean = {
    val version = spark.version.split('.').take(2).map(_.toInt)
    version(0) > 4 || (version(0) == 4 && version(1) >= 3)
  }

  test(
    "SQL ASOF JOIN ... MATCH_CONDITION runs as AsOfJoinExec with the answer of Spark's own",
    EveryLine
  ) {
    assume(sqlAsOfJoins, s"Spark ${spark.version} has no SQL ASOF JOIN")
    // Spark plans the SQL form with its sort-merge as-of join when the plugin is off.
    val rnd = new Random(20261126)
    var rows = 0
    for (seed <- 0L until 24) {
      val asOfType = asOfTypes(rnd.nextInt(asOfTypes.size))
      val (l, r) = tables(asOfType, seed, oddLeft = false)
      l.createOrReplaceTempView("asof_l")
      r.createOrReplaceTempView("asof_r")
      // Backward takes the latest right value below the left one, forward the earliest above;
      // either may be written with the right column first.
      val op = Seq(">=", ">", "<=", "<")(rnd.nextInt(4))
      val flipped = Map(">=" -> "<=", ">" -> "<", "<=" -> ">=", "<" -> ">")
      val matching =
        if (rnd.nextBoolean()) s"a.t $op b.rt" else s"b.rt ${flipped(op)} a.t"
      val join = if (rnd.nextBoolean()) "LEFT ASOF JOIN" else "ASOF JOIN"
      val on = if (rnd.nextInt(3) == 0) "a.k = b.rk AND b.q > 0.3" else "a.k = b.rk"
      val query = s"SELECT * FROM asof_l AS a $join asof_r AS b MATCH_CONDITION ($matching) ON $on"
      val shuffled = seed % 2 == 1
      withConf(
        "spark.sql.join.asofJoin.enabled" -> "true",
        SQLConf.AUTO_BROADCASTJOIN_THRESHOLD.key -> (if (shuffled) "-1" else "10485760"),
        SQLConf.ANSI_ENABLED.key -> (seed % 3 != 0).toString
      ) {
        val df = spark.sql(query)
        val actual = multiset(df)
        val plan = df.queryExecution.executedPlan
        val found = collect(plan) { case j: AsOfJoinExec => j.broadcast }
        assert(found == Seq(!shuffled), s"$query\n$plan")
        val expected = withConf(RangeJoinConf.Enabled.key -> "false") {
          val vanilla = spark.sql(query)
          val spark43 = vanilla.queryExecution.executedPlan.toString
          assert(spark43.contains("SortMergeAsOfJoin"), spark43)
          multiset(vanilla)
        }
        assert(actual == expected, s"$query\nplan:\n$plan")
        rows += actual.size
      }
    }
    assert(rows > 1500, rows)
  }

  test("EXPLAIN names the operator, its direction and how the right input arrives", EveryLine) {
    val query = Query(
      "timestamp",
      9,
      "backward",
      exact = true,
      withTolerance = true,
      "inner",
      keyed = true,
      residual = true
    )
    val plan = query.run().queryExecution.executedPlan.toString
    assert(plan.contains("AsOfJoin"), plan)
    assert(plan.contains("direction: backward"), plan)
    assert(plan.contains("right input: broadcast"), plan)
  }
}
