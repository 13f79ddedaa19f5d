package rangejoin

import scala.util.Random

import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.execution.rangejoin.AsOfJoins
import org.apache.spark.sql.functions.{abs, col, expr, lit}

import rangejoin.OracleQueries._
import rangejoin.OracleTables.Typed
import rangejoin.config.RangeJoinConf
import rangejoin.execution.BlockRangeJoinExec

/**
 * Every operator against a brute-force oracle written plainly in SQL ([[OracleQueries]]), on
 * duplicate-heavy tables with NULL keys, NaN, -0.0 and infinities ([[OracleTables]]): every pair
 * of `<`, `<=`, `>`, `>=` over two inequalities, every bracket of a point in an interval and of a
 * band, one inequality, each with and without an equality key, in every join type, with the
 * broadcast join on and off, empty sides, `LIMIT` and `count(*)` above the join, and the as-of
 * join.
 *
 * Each query is checked three ways: it plans the operator the design promises (so the answer is
 * the operator's), and its rows equal both the oracle's and the same query's with the plugin off.
 * An oracle that disagrees with vanilla Spark is itself wrong, and says so.
 */
class OracleSuite extends RangeJoinTestBase {

  import OracleSuite._
  import OracleTables.{date, double, int, string}

  private def vanilla[T](body: => T): T = withConf(RangeJoinConf.Enabled.key -> "false")(body)

  /**
   * Asserts that `query` plans exactly `operators` and returns the oracle's rows, as vanilla Spark
   * returns the query's; returns the rows and the executed plan.
   */
  private def check(query: String, oracle: String, operators: Seq[String])
      : (Seq[String], SparkPlan) = {
    val df = spark.sql(query)
    val actual = multiset(df)
    val plan = df.queryExecution.executedPlan
    assert(rangeJoins(plan) == operators, s"expected operators $operators in\n$plan")
    val (plain, expected) = vanilla {
      val v = spark.sql(query)
      val rows = multiset(v)
      assert(rangeJoins(v.queryExecution.executedPlan).isEmpty)
      (rows, multiset(spark.sql(oracle)))
    }
    assertSame(plain, expected, s"the oracle disagrees with vanilla Spark: $oracle")
    assertSame(actual, expected, s"plan:\n$plan")
    (actual, plan)
  }

  private def assertSame(actual: Seq[String], expected: Seq[String], clue: => String): Unit =
    if (actual != expected) {
      fail(
        s"""rows expected: ${expected.size}, found: ${actual.size}
           |missing (first 10): ${expected.diff(actual).take(10).mkString(" ")}
           |extra (first 10): ${actual.diff(expected).take(10).mkString(" ")}
           |$clue""".stripMargin
      )
    }

  /** Registers `l` and `r` for `seed`: 15 to 45 rows each, two or three blocks of 16 rows. */
  private def tables(seed: Long): Unit = {
    val rnd = new Random(seed)
    OracleTables.register(spark, "l", 15 + rnd.nextInt(31), rnd.nextLong())
    OracleTables.register(spark, "r", 15 + rnd.nextInt(31), rnd.nextLong())
  }

  /**
   * The settings of the `s`th seed of [[checkCases]]: block joins range-partition their inputs
   * or coalesce them (the cheaper plan for the suite's small queries), into blocks of 16 rows or
   * of a few, so that runs of equal keys cross many block boundaries; one seed runs without
   * whole-stage codegen.
   */
  private def seedConf(s: Int): Seq[(String, String)] = {
    val (rangePartitionMinRows, blockRows, wholeStage) = Seq(
      ("1", 16, true),
      ("1000000", 3, true),
      ("1000000", 16, false),
      ("1000000", 16, true),
      ("1", 5, true)
    )(s % 5)
    Seq(
      RangeJoinConf.RangePartitionMinRows.key -> rangePartitionMinRows,
      RangeJoinConf.BlockRows.key -> blockRows.toString,
      "spark.sql.codegen.wholeStage" -> wholeStage.toString
    )
  }

  /**
   * Checks each case on tables drawn from one of `seeds` seeds from `firstSeed`, in that seed's
   * settings ([[seedConf]]): consecutive cases take the seeds in turn, so a join type's
   * conditions meet several tables. Returns the rows of all cases.
   */
  private def checkCases(cases: Seq[Case], firstSeed: Long, seeds: Int = 5): Int =
    cases.zipWithIndex.groupBy(_._2 % seeds).toSeq.sortBy(_._1).map { case (s, group) =>
      val seed = firstSeed + s
      tables(seed)
      withConf(seedConf(s): _*) {
        group.map { case (c, _) =>
          withClue(s"seed $seed (${seedConf(s).map(_._2).mkString(", ")}), $c: ${c.query}\n") {
            check(c.query, c.oracle, Seq(c.operator))._1.size
          }
        }.sum
      }
    }.sum

  private def isEvery(n: Int)(i: Int): Boolean = i % n == 0

  /**
   * Pairs of `shapes` and `conditions` in shape order, each kept where `keep` holds of the sum of
   * their positions: `keep = _ => true` takes all, `isEvery(4)` a quarter that still puts every
   * condition with some join types and every join type with some conditions.
   */
  private def pairs(conditions: Seq[Condition], keep: Int => Boolean = _ => true)
      : Seq[(Shape, Condition)] =
    for {
      (shape, s) <- shapes.zipWithIndex
      (condition, c) <- conditions.zipWithIndex
      if keep(s + c)
    } yield (shape, condition)

  /**
   * The operator for a join without equality keys: a bound filter for one inequality alone in a
   * join that asks only whether a row matched; with the broadcast join on, a broadcast range join
   * where the join type allows one and the keys have fixed-width codes; else a block join.
   */
  private def unkeyed(shape: Shape, c: Condition, t: Typed, broadcast: Boolean): String =
    if (c.inequalities == 1 && !c.residual && existenceShapes(shape)) "BoundFilterJoin"
    else if (broadcast && shape != full && t != string) "BroadcastRangeJoin"
    else if (c.inequalities == 1) "PiecewiseMergeJoin"
    else "IEJoin"

  private def unkeyedCases(
      t: Typed,
      conditions: Seq[Condition],
      keep: Int => Boolean = _ => true,
      broadcast: Boolean = false
  ): Seq[Case] = pairs(conditions, keep).map { case (shape, c) =>
    Case(shape, c, t, unkeyed(shape, c, t, broadcast))
  }

  private def keyedCases(
      t: Typed,
      conditions: Seq[Condition],
      operator: String,
      keep: Int => Boolean = _ => true
  ): Seq[Case] = pairs(conditions.map(keyed), keep).map { case (s, c) => Case(s, c, t, operator) }

  /** The broadcast range join on, for inputs of any size below Spark's broadcast threshold. */
  private def broadcastOn[T](body: => T): T = withConf(
    RangeJoinConf.BroadcastEnabled.key -> "true",
    RangeJoinConf.BroadcastMaxRowsRatio.key -> "1e9"
  )(body)

  test("two inequalities, all 16 operator pairs, every join type: IEJoin") {
    // Every pair of operators meets every join type on ints or on doubles.
    val cases = unkeyedCases(int, twoInequalities(int), isEvery(2)) ++
      unkeyedCases(double, twoInequalities(double), i => i % 2 == 1) ++
      unkeyedCases(string, twoInequalities(string), i => i % 8 == 3)
    assert(checkCases(cases, firstSeed = 100) > 0)
  }

  test("two inequalities with an equality key, all 16 operator pairs: KeyGroupIEJoin") {
    val cases = keyedCases(int, twoInequalities(int), "KeyGroupIEJoin", isEvery(3)) ++
      keyedCases(double, twoInequalities(double), "KeyGroupIEJoin", i => i % 6 == 1) ++
      keyedCases(string, twoInequalities(string), "KeyGroupIEJoin", i => i % 8 == 3)
    assert(checkCases(cases, firstSeed = 200) > 0)
  }

  test("a point in an interval, every bracket, every join type, with and without a key") {
    val cases = Seq(int, date).zipWithIndex.flatMap { case (t, i) =>
      unkeyedCases(t, containment(t), j => (i + j) % 2 == 0) ++
        keyedCases(t, containment(t), "KeyGroupIEJoin", j => (i + j) % 2 == 1)
    }
    assert(checkCases(cases, firstSeed = 300) > 0)
  }

  test("band joins, every bracket, every join type: IEJoin, and SlidingWindowJoin with a key") {
    val cases = Seq(int, double, date).zipWithIndex.flatMap { case (t, i) =>
      unkeyedCases(t, band(t), j => (i + j) % 3 == 0) ++
        keyedCases(t, band(t), "SlidingWindowJoin", j => (i + j) % 3 == 1)
    }
    assert(checkCases(cases, firstSeed = 400) > 0)
  }

  test("one inequality, every operator, every join type: PiecewiseMergeJoin, BoundFilterJoin") {
    val cases = unkeyedCases(int, single(int)) ++
      unkeyedCases(double, single(double), isEvery(2)) ++
      unkeyedCases(string, single(string), isEvery(4)) ++
      // With a residual, a join that asks only whether a row matched merges too.
      unkeyedCases(int, single(int).map(withResidual), i => i % 3 == 1)
    assert(checkCases(cases, firstSeed = 500) > 0)
  }

  test("the broadcast range join: operator pairs, intervals, bands and one inequality") {
    val cases = unkeyedCases(int, twoInequalities(int), isEvery(4), broadcast = true) ++
      unkeyedCases(date, containment(date), isEvery(2), broadcast = true) ++
      unkeyedCases(double, band(double), i => i % 2 == 1, broadcast = true) ++
      unkeyedCases(int, single(int), isEvery(2), broadcast = true) ++
      unkeyedCases(double, twoInequalities(double).map(withResidual), isEvery(8), true) ++
      unkeyedCases(string, twoInequalities(string), i => i % 8 == 5, broadcast = true)
    broadcastOn(assert(checkCases(cases, firstSeed = 600) > 0))
  }

  test("empty sides: left, right and both, every join type and operator") {
    // Inputs Spark cannot see are empty (RDDs of rows), and adaptive execution off, which would
    // replace a join with an empty side by an empty relation before the operator runs.
    val conditions = Seq(
      (twoInequalities(int)(5), int, None),
      (band(int)(1), int, Some("SlidingWindowJoin")),
      (twoInequalities(double)(10), double, Some("KeyGroupIEJoin")),
      (single(double)(3), double, None)
    )
    withConf("spark.sql.adaptive.enabled" -> "false") {
      for ((emptyLeft, emptyRight) <- Seq((true, false), (false, true), (true, true))) {
        val rnd = new Random(700 + (if (emptyLeft) 1 else 0) + (if (emptyRight) 2 else 0))
        for ((view, empty) <- Seq("l" -> emptyLeft, "r" -> emptyRight)) {
          val rows = if (empty) Nil else OracleTables.rows(30, rnd.nextLong(), 3, 12)
          spark
            .createDataFrame(spark.sparkContext.parallelize(rows, 2), OracleTables.schema)
            .createOrReplaceTempView(view)
        }
        for ((shape, s) <- shapes.zipWithIndex; i <- Seq(s % 4, (s + 2) % 4)) {
          val (condition, t, keyedOperator) = conditions(i)
          val c = keyedOperator match {
            case Some(op) => Case(shape, keyed(condition), t, op)
            case None => Case(shape, condition, t, unkeyed(shape, condition, t, false))
          }
          withClue(s"empty left $emptyLeft, empty right $emptyRight, $c: ${c.query}\n") {
            check(c.query, c.oracle, Seq(c.operator))
          }
        }
      }
    }
  }

  test("LIMIT on top of the join, ordered by every column, unordered, and count(*)") {
    for ((shape, s) <- shapes.zipWithIndex; variant <- 0 until 3) {
      val seed = 800L + s * 3 + variant
      tables(seed)
      val rnd = new Random(seed)
      val kinds = Seq(
        (twoInequalities(int)(rnd.nextInt(16)), int, None),
        (containment(date)(rnd.nextInt(4)), date, Some("KeyGroupIEJoin")),
        (band(double)(rnd.nextInt(4)), double, Some("SlidingWindowJoin")),
        (single(int)(rnd.nextInt(4)), int, None),
        (twoInequalities(string)(rnd.nextInt(16)), string, None)
      )
      val (condition, t, keyedOperator) = kinds((s + variant * 2) % kinds.size)
      val broadcast = variant == 2
      val c = keyedOperator match {
        case Some(op) => Case(shape, keyed(condition), t, op)
        case None => Case(shape, condition, t, unkeyed(shape, condition, t, broadcast))
      }
      val order = if (shape.pairs) "lid, rid, lv, rv" else "lid, lv"
      val n = Seq(1, 5, 17, 60)(rnd.nextInt(4))
      def limited(sql: String) = s"SELECT * FROM ($sql) AS j ORDER BY $order LIMIT $n"
      def counted(sql: String) = s"SELECT count(*) FROM ($sql) AS j"
      def run(): Unit =
        withClue(s"seed $seed, $c, LIMIT $n: ${c.query}\n") {
          val total = check(counted(c.query), counted(c.oracle), Seq(c.operator))._1
          val all = vanilla(multiset(spark.sql(c.oracle)))
          assert(total == Seq(s"[${all.size}]"))
          check(limited(c.query), limited(c.oracle), Seq(c.operator))
          // Without an order, any n rows of the join's.
          val df = spark.sql(s"SELECT * FROM (${c.query}) AS j LIMIT $n")
          val some = multiset(df)
          assert(rangeJoins(df.queryExecution.executedPlan) == Seq(c.operator))
          assert(some.size == math.min(n, all.size))
          assert(some.diff(all).isEmpty, s"rows not in the join: ${some.diff(all).take(10)}")
        }
      if (broadcast) broadcastOn(run()) else run()
    }
  }

  test("inputs read from Parquet files as column batches") {
    withConf("spark.sql.parquet.columnarReaderBatchSize" -> "8") {
      for (seed <- 900L until 902L) {
        val rnd = new Random(seed)
        for (view <- Seq("l", "r"))
          OracleTables.register(spark, view, 20 + rnd.nextInt(30), rnd.nextLong(), fromFiles = true)
        val cases = unkeyedCases(int, twoInequalities(int), i => i % 16 == seed % 16) ++
          unkeyedCases(double, containment(double), i => i % 4 == seed % 4) ++
          unkeyedCases(date, single(date), i => i % 4 == (seed + 1) % 4)
        withConf(RangeJoinConf.RangePartitionMinRows.key -> "1000000") {
          for (c <- cases) withClue(s"seed $seed, $c: ${c.query}\n") {
            val plan = check(c.query, c.oracle, Seq(c.operator))._2
            for (join <- collect(plan) { case j: BlockRangeJoinExec => j }) {
              assert(join.simpleString(100).contains("left coalesced, column batches"), plan)
            }
          }
        }
      }
    }
  }

  test("as-of joins: the nearest as-of value, every direction, exact or not, tolerance, keys") {
    val rnd = new Random(1000)
    for (seed <- 1000L until 1012L) {
      tables(seed)
      val t = if (seed % 2 == 0) int else date
      spark.sql(s"SELECT id, k, ${t.c1} AS t FROM l").createOrReplaceTempView("al")
      spark.sql(s"SELECT id AS rid, k AS rk, ${t.c1} AS rt, i2 AS q FROM r")
        .createOrReplaceTempView("ar")
      val directions =
        if (t == int) Seq("backward", "forward", "nearest") else Seq("backward", "forward")
      val q = AsOf(
        t,
        directions(rnd.nextInt(directions.size)),
        exact = rnd.nextBoolean(),
        tolerance = rnd.nextBoolean(),
        how = Seq("inner", "left")(rnd.nextInt(2)),
        keyed = rnd.nextInt(4) != 0,
        residual = rnd.nextInt(3) == 0
      )
      // Keyed joins shuffle both inputs in half of the seeds, else broadcast the right input.
      val threshold = if (q.keyed && seed % 4 < 2) "-1" else "10485760"
      withConf("spark.sql.autoBroadcastJoinThreshold" -> threshold) {
        withClue(s"seed $seed, $q\n") {
          val df = q.run(spark)
          val actual = multiset(df)
          assert(rangeJoins(df.queryExecution.executedPlan) == Seq("AsOfJoin"))
          val (plain, expected) = vanilla {
            val v = q.run(spark)
            assert(rangeJoins(v.queryExecution.executedPlan).isEmpty)
            (multiset(v), multiset(spark.sql(q.oracle)))
          }
          assertSame(plain, expected, s"the oracle disagrees with vanilla Spark: ${q.oracle}")
          assertSame(actual, expected, s"plan:\n${df.queryExecution.executedPlan}")
        }
      }
    }
  }
}

object OracleSuite {

  /** One query of the suite: a join type, a condition on columns of a type, its operator. */
  final case class Case(shape: Shape, condition: Condition, t: Typed, operator: String) {
    def query: String = shape.query(condition.sql, t)
    def oracle: String = shape.oracle(condition.sql, t)
    override def toString: String = s"$shape join on ${condition.label}, $operator"
  }

  /**
   * The as-of join of `al` (`id`, key `k`, as-of `t`) and `ar` (`rid`, `rk`, `rt`, `q`): Spark
   * promises any one of the right rows at the least distance, so the query keeps of the answer
   * only what is defined, the as-of value found (`rt`), or for a nearest match the distance.
   */
  final case class AsOf(
      t: Typed,
      direction: String,
      exact: Boolean,
      tolerance: Boolean,
      how: String,
      keyed: Boolean,
      residual: Boolean
  ) {
    private def tol = if (t == OracleTables.date) "INTERVAL 2 DAYS" else "2"

    def run(spark: SparkSession): DataFrame = {
      val (l, r) = (spark.table("al"), spark.table("ar"))
      val keys = if (keyed) l("k") === r("rk") else lit(true)
      val joined = AsOfJoins.joinAsOf(
        l,
        r,
        l("t"),
        r("rt"),
        if (residual) keys && r("q") > 2 else keys,
        how,
        if (tolerance) expr(tol) else null,
        exact,
        direction
      )
      if (direction == "nearest") joined.select(col("id"), abs(col("t") - col("rt")))
      else joined.select("id", "t", "rt")
    }

    /**
     * Whether right row `b` may answer left row `a`. As in Spark's as-of condition, a tolerance
     * bound is strict when exact matches are not allowed.
     */
    private def qualifies(b: String): String = {
      val (ge, le) = if (exact) (">=", "<=") else (">", "<")
      val (lower, upper) = (s"$b.rt $ge a.t - $tol", s"$b.rt $le a.t + $tol")
      val (asOf, window) = direction match {
        case "backward" => (s"$b.rt ${if (exact) "<=" else "<"} a.t", Seq(lower))
        case "forward" => (s"$b.rt ${if (exact) ">=" else ">"} a.t", Seq(upper))
        // A distance that is NULL is never the least (min_by skips it).
        case _ if exact => (s"a.t IS NOT NULL AND $b.rt IS NOT NULL", Seq(lower, upper))
        case _ => (s"$b.rt <> a.t", Seq(lower, upper))
      }
      (Seq(asOf) ++ window.filter(_ => tolerance) ++
        Seq(s"a.k = $b.rk").filter(_ => keyed) ++ Seq(s"$b.q > 2").filter(_ => residual))
        .mkString(" AND ")
    }

    /** `c` is nearer to `a` than `b`. */
    private def nearer(c: String, b: String): String = direction match {
      case "backward" => s"$c.rt > $b.rt"
      case "forward" => s"$c.rt < $b.rt"
      case _ => s"abs(a.t - $c.rt) < abs(a.t - $b.rt)"
    }

    /**
     * Each left row with the as-of value of a qualifying right row that no other qualifying row
     * is nearer than (distinct: rows at the same distance give one answer), and for a left join
     * the left rows no right row qualifies for, padded.
     */
    def oracle: String = {
      val found = if (direction == "nearest") "abs(a.t - b.rt)" else "a.t, b.rt"
      val padded = if (direction == "nearest") "NULL" else "a.t, NULL"
      val matched = s"SELECT DISTINCT a.id, $found FROM al a CROSS JOIN ar b " +
        s"WHERE ${qualifies("b")} AND NOT EXISTS " +
        s"(SELECT 1 FROM ar c WHERE ${qualifies("c")} AND ${nearer("c", "b")})"
      val unmatched = s"SELECT a.id, $padded FROM al a WHERE NOT EXISTS " +
        s"(SELECT 1 FROM ar b WHERE ${qualifies("b")})"
      if (how == "left") s"$matched UNION ALL $unmatched" else matched
    }
  }
}
