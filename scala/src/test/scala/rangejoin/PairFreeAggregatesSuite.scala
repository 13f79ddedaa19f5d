package rangejoin

import scala.util.Random

import org.apache.spark.sql.catalyst.plans.logical.Join
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types._

import rangejoin.config.RangeJoinConf
import rangejoin.execution.CountMatchesExec

/**
 * Counts of an inner join's pairs answered without the pairs ([[rangejoin.planning
 * .PairFreeAggregates]]): random tables of every type with 64-bit codes (duplicates, NULLs,
 * NaN, -0.0; [[RandomTables]]), conditions with every kind of bound read from either input,
 * `count(*)` alone and grouped by either input, in every ANSI and codegen mode. Each query must
 * plan CountMatchesExec and return what vanilla Spark returns.
 */
class PairFreeAggregatesSuite extends RangeJoinTestBase {

  private val random = RandomQueries.fromEnv(count = 100, firstSeed = 1L)

  private val types = Seq(
    IntegerType,
    LongType,
    ShortType,
    DoubleType,
    FloatType,
    DecimalType(10, 2),
    DateType,
    TimestampType,
    TimestampNTZType,
    BooleanType
  )

  /** Conditions that are a point in a range, in the forms users write them. */
  private val conditions = Seq(
    "l.a BETWEEN r.b AND r.c",
    "r.a BETWEEN l.b AND l.c",
    "l.a >= r.b AND l.a < r.c",
    "r.b < l.a AND r.c > l.a",
    "l.a > r.b AND l.a <= r.c",
    "l.a < r.b",
    "r.a >= l.c",
    "l.a <= r.b AND l.a >= r.b"
  )

  private val shapes: Seq[String => String] = Seq(
    c => s"SELECT count(*) FROM l JOIN r ON $c",
    c => s"SELECT l.b, count(*) AS n FROM l JOIN r ON $c GROUP BY l.b",
    c => s"SELECT r.c, count(1), count(*) * 2 AS twice FROM l JOIN r ON $c GROUP BY r.c",
    c => s"SELECT l.id % 3 AS g, count(*) FROM l JOIN r ON $c GROUP BY l.id % 3",
    c => s"SELECT count(*) FROM l, r WHERE $c AND l.id % 2 = 0"
  )

  /**
   * Spark filters out rows with a NULL key before an inner join (`isnotnull`, inferred from the
   * condition); without that rule, they reach the operator.
   */
  private val nullKeysKept = SQLConf.OPTIMIZER_EXCLUDED_RULES.key ->
    "org.apache.spark.sql.catalyst.optimizer.InferFiltersFromConstraints"

  /** Asserts that `query` returns the same multiset with the plugin on and off; its size. */
  private def checkSameAnswer(query: String): Int = {
    val expected = withConf(RangeJoinConf.Enabled.key -> "false")(multiset(spark.sql(query)))
    val actual = multiset(spark.sql(query))
    assert(actual == expected, query)
    actual.size
  }

  /**
   * The CountMatchesExec nodes of `query`'s plan as first planned: adaptive execution drops them
   * from the final plan when the aggregate above turns out empty.
   */
  private def countMatches(query: String): Seq[CountMatchesExec] =
    collect(spark.sql(query).queryExecution.executedPlan) { case c: CountMatchesExec => c }

  /**
   * Whether Spark's optimizer answers `query` with no join at all (an input it knows to be empty,
   * or whose keys it knows to be all NULL).
   */
  private def joinFolded(query: String): Boolean =
    withConf(RangeJoinConf.Enabled.key -> "false") {
      spark.sql(query).queryExecution.optimizedPlan.collectFirst { case j: Join => j }.isEmpty
    }

  /**
   * Checks that `query` plans CountMatchesExec and returns the same multiset as vanilla Spark;
   * returns the operator and the number of rows.
   */
  private def checkCounted(query: String): (CountMatchesExec, Int) = {
    val planned = countMatches(query)
    assert(planned.size == 1, spark.sql(query).queryExecution.executedPlan)
    (planned.head, checkSameAnswer(query))
  }

  test(
    s"${random.count} random counts of every type, bound and grouping match vanilla Spark",
    EveryLine
  ) {
    val ways = scala.collection.mutable.Map.empty[(Boolean, Boolean), Int].withDefaultValue(0)
    var withMatches = 0
    var folded = 0
    for (seed <- random.seeds) {
      val rnd = new Random(seed * 0x9e3779b97f4a7c15L)
      val dataType = types(rnd.nextInt(types.size))
      for (view <- Seq("l", "r")) {
        RandomTables
          .table(spark, dataType, rnd.nextInt(60), rnd.nextLong())
          .createOrReplaceTempView(view)
      }
      val query = shapes(rnd.nextInt(shapes.size))(conditions(rnd.nextInt(conditions.size)))
      // Odd seeds keep NULL keys.
      val settings = SessionMode.of(seed).confs ++ Seq(nullKeysKept).filter(_ => seed % 2 == 1)
      withConf(settings: _*) {
        withClue(s"seed $seed (${dataType.simpleString}, $settings): $query\n") {
          if (joinFolded(query)) { folded += 1; checkSameAnswer(query) }
          else {
            val (c, rows) = checkCounted(query)
            ways((c.pointGrouped, c.indexGrouped)) += 1
            if (rows > 0) withMatches += 1
          }
        }
      }
    }
    info(
      s"ways (point grouped, grouped indexed): $ways; queries with rows: $withMatches; " +
        s"answered by Spark's optimizer alone: $folded"
    )
    // Enough queries take every way, and most have rows (a few inputs Spark knows are empty).
    if (random.count >= 100) assert(ways.size == 4, s"every way of counting is taken: $ways")
    assert(withMatches > random.count / 2 && folded < random.count / 8 + 1)
  }

  test("a band join's count, on either input, with each input indexed") {
    spark.range(0, 300).selectExpr("id", "id * 7 % 101 AS v").createOrReplaceTempView("l")
    spark.range(0, 40).selectExpr("id", "id * 3 % 97 AS v").createOrReplaceTempView("r")
    val band = "l.v BETWEEN r.v - 10 AND r.v + 10"
    val byRight = checkCounted(s"SELECT r.id, count(*) FROM l JOIN r ON $band GROUP BY r.id")
    assert(byRight._1.indexGrouped) // r, the grouped input, is the smaller
    val byLeft = checkCounted(s"SELECT l.id, count(*) FROM l JOIN r ON $band GROUP BY l.id")
    assert(!byLeft._1.indexGrouped)
    assert(checkCounted(s"SELECT count(*) FROM l JOIN r ON $band")._1.indexedName == "counted")
  }

  test("empty inputs, and inputs whose keys are all NULL, count 0 and group nothing", EveryLine) {
    spark.range(0, 20).selectExpr("id", "id AS a").createOrReplaceTempView("l")
    spark.range(0, 20).selectExpr("id", "IF(id < 100, NULL, id) AS lo", "id AS hi")
      .createOrReplaceTempView("r")
    // Empty when it runs, not by the optimizer's estimate: an input estimated empty makes a join
    // of no candidate pairs, which is left to Spark with its count.
    spark.range(0, 20).where("id > 100").selectExpr("id", "id AS lo", "id AS hi")
      .createOrReplaceTempView("e")
    withConf(nullKeysKept) {
      for (other <- Seq("r", "e")) {
        val cond = s"l.a BETWEEN $other.lo AND $other.hi"
        val count = s"SELECT count(*) FROM l JOIN $other ON $cond"
        assert(checkCounted(count)._2 == 1)
        assert(spark.sql(count).head().getLong(0) == 0L)
        val grouped = s"SELECT l.id, count(*) FROM l JOIN $other ON $cond GROUP BY l.id"
        assert(checkCounted(grouped)._2 == 0)
      }
    }
  }

  test("what it does not answer is left to the join, with the same answer", EveryLine) {
    spark.range(0, 50).selectExpr("id", "id % 17 AS a", "id % 5 AS b").createOrReplaceTempView("l")
    spark.range(0, 30).selectExpr("id", "id % 13 AS lo", "id % 13 + id % 4 AS hi")
      .createOrReplaceTempView("r")
    val cond = "l.a BETWEEN r.lo AND r.hi"
    val declined = Seq(
      s"SELECT count(DISTINCT l.a) FROM l JOIN r ON $cond",
      s"SELECT sum(r.id) FROM l JOIN r ON $cond",
      s"SELECT count(r.lo) FROM l JOIN r ON $cond",
      s"SELECT l.b, r.lo, count(*) FROM l JOIN r ON $cond GROUP BY l.b, r.lo",
      s"SELECT count(*) FROM l LEFT JOIN r ON $cond",
      s"SELECT count(*) FROM l JOIN r ON $cond AND l.id <> r.id",
      s"SELECT count(*) FROM l JOIN r ON $cond AND l.b = r.id % 5",
      s"SELECT count(*) FROM l JOIN r ON l.a > r.lo AND l.b < r.hi",
      s"SELECT count(*) FILTER (WHERE l.b > 2) FROM l JOIN r ON $cond"
    )
    for (query <- declined) withClue(query) {
      checkSameAnswer(query)
      assert(countMatches(query).isEmpty)
    }
    val counted = s"SELECT count(*) FROM l JOIN r ON $cond"
    for (
      setting <- Seq(
        RangeJoinConf.PairFreeAggregates.key -> "false",
        SQLConf.AUTO_BROADCASTJOIN_THRESHOLD.key -> "-1",
        // A join the ladder leaves to Spark as small (50 x 30 rows) keeps its count too.
        RangeJoinConf.MinSmallSideRows.key -> "30",
        RangeJoinConf.MinCandidatePairs.key -> "1500"
      )
    ) withConf(setting) {
      assert(countMatches(counted).isEmpty, setting)
      checkSameAnswer(counted)
    }
  }

  test("a mistyped or invalid setting fails a counted join, naming the key") {
    spark.range(0, 100).selectExpr("id AS x").createOrReplaceTempView("l")
    spark.range(0, 100).selectExpr("id AS y").createOrReplaceTempView("r")
    val count = "SELECT count(*) FROM l JOIN r ON l.x < r.y"
    val settings = Seq(
      "spark.rangejoin.enable" -> "Did you mean spark.rangejoin.enabled",
      RangeJoinConf.PairFreeAggregates.key -> "for configuration spark.rangejoin.pairFree"
    )
    for ((key, message) <- settings) {
      spark.conf.set(key, "")
      try {
        val e = intercept[IllegalArgumentException](spark.sql(count).collect())
        assert(e.getMessage.contains(message), e.getMessage)
      } finally spark.conf.unset(key)
    }
    assert(spark.sql(count).head().getLong(0) == 4950L)
  }

  test("EXPLAIN names the operator, the condition and the input it indexes", EveryLine) {
    spark.range(0, 365).selectExpr("id AS day").createOrReplaceTempView("l")
    spark.range(0, 1000).selectExpr("id % 300 AS lo", "id % 300 + 30 AS hi")
      .createOrReplaceTempView("r")
    val df = spark.sql(
      "SELECT l.day, count(*) FROM l JOIN r ON l.day >= r.lo AND l.day < r.hi GROUP BY l.day"
    )
    val explained = df.queryExecution.explainString(org.apache.spark.sql.execution.SimpleMode)
    assert(explained.contains("CountMatches [r.lo <= l.day < r.hi]"), explained)
    assert(explained.contains("without forming pairs, index on the grouped input"), explained)
    assert(
      rangejoin.planning.Declines.explain(df.queryExecution).toSeq == Seq(
        "spark-rangejoin counts the pairs of the Inner join on `r.lo <= l.day < r.hi` without " +
          "forming them, as CountMatches"
      )
    )
  }
}
