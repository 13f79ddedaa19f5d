package rangejoin.planning

import org.apache.spark.sql.catalyst.expressions.{Add, AttributeReference, EvalMode, Literal}
import org.apache.spark.sql.types._

import rangejoin.RangeJoinTestBase
import rangejoin.condition.IntegralOffsetKey

/**
 * Which two inequalities drive the operators ([[DrivingInequalities]]): the pair that prunes
 * best by Spark's column statistics, a band without them, else the order of the condition.
 */
class DrivingInequalitiesSuite extends RangeJoinTestBase {

  /** The left keys of the one IEJoin of `query`'s plan, as SQL, once it matched vanilla Spark. */
  private def drivingOrder(query: String): Seq[String] = {
    val (_, plan) = checkOperatorPlan(query, Some("IEJoin"))
    ieJoins(plan).head.leftKeys.map(_.sql)
  }

  test("differenceCdf: P(l - r <= t) for uniform l and r") {
    val cdf = DrivingInequalities.differenceCdf _
    assert(cdf((0, 1), (0, 1), 0) == 0.5)
    assert(cdf((0, 1), (0, 1), 1) == 1.0 && cdf((0, 1), (0, 1), -1) == 0.0)
    assert(math.abs(cdf((0, 1), (0, 1), 0.5) - 0.875) < 1e-3)
    // l far above r: l - r <= 0 almost never.
    assert(cdf((1000, 2000), (0, 1010), 0) < 1e-3)
    // Points.
    assert(cdf((5, 5), (3, 3), 2) == 1.0 && cdf((5, 5), (3, 3), 1.9) == 0.0)
  }

  test("offsetColumn: a column plus constants, through candidate keys") {
    val x = AttributeReference("x", IntegerType)()
    assert(DrivingInequalities.offsetColumn(x) == Some((x, 0.0)))
    assert(DrivingInequalities.offsetColumn(Add(x, Literal(3), EvalMode.ANSI)) == Some((x, 3.0)))
    assert(DrivingInequalities.offsetColumn(IntegralOffsetKey(x, -4, None)) == Some((x, -4.0)))
    assert(DrivingInequalities.offsetColumn(AttributeReference("s", StringType)()).isEmpty)
  }

  test("without statistics a band drives, whatever its place in the condition") {
    spark.range(0, 300).selectExpr("id", "id % 37 AS a", "id % 101 AS b")
      .createOrReplaceTempView("l")
    spark.range(0, 200).selectExpr("id", "id % 41 AS a", "id % 97 AS b")
      .createOrReplaceTempView("r")
    val keys = drivingOrder(
      "SELECT l.id, r.id FROM l JOIN r ON l.a > r.a AND l.id < r.id + 250 AND abs(l.b - r.b) <= 2"
    )
    assert(keys.take(2).forall(_.contains("l.b")), keys)
    // Three inequalities, no band, no statistics: the condition's order.
    val plain =
      drivingOrder("SELECT l.id, r.id FROM l JOIN r ON l.b < r.b AND l.a > r.a AND l.id < r.id")
    assert(plain == Seq("l.b", "l.a", "l.id"))
  }

  test("with column statistics the most selective pair drives") {
    withConf("spark.sql.cbo.enabled" -> "true", "spark.sql.autoBroadcastJoinThreshold" -> "-1") {
      Seq("sl", "sr").foreach(t => spark.sql(s"DROP TABLE IF EXISTS $t"))
      try {
        // l.b lies above r.b but for a sliver, so l.b < r.b holds for few pairs; l.c < r.c holds
        // for nearly all, l.a < r.a for half.
        spark.range(
          0,
          400
        ).selectExpr("id", "id % 100 AS a", "1000 + id % 1000 AS b", "id % 10 AS c")
          .write.saveAsTable("sl")
        spark.range(
          0,
          400
        ).selectExpr("id", "id % 100 AS a", "id * 3 % 1010 AS b", "id % 1000 AS c")
          .write.saveAsTable("sr")
        Seq("sl", "sr").foreach { t =>
          spark.sql(s"ANALYZE TABLE $t COMPUTE STATISTICS FOR COLUMNS a, b, c")
        }
        val keys = drivingOrder(
          "SELECT l.id, r.id FROM sl l JOIN sr r ON l.c < r.c AND l.a < r.a AND l.b < r.b"
        )
        assert(keys == Seq("l.a", "l.b", "l.c"))
      } finally Seq("sl", "sr").foreach(t => spark.sql(s"DROP TABLE IF EXISTS $t"))
    }
  }
}
