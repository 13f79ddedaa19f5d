package rangejoin.planning

import org.apache.logging.log4j.Level
import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.catalyst.analysis.UnresolvedAttribute
import org.apache.spark.sql.catalyst.expressions.Literal
import org.apache.spark.sql.catalyst.plans.logical.{ResolvedHint, UnresolvedHint}

import rangejoin.{LogCapture, RangeJoinTestBase}
import rangejoin.config.RangeJoinConf

/** Databricks' `RANGE_JOIN` hint ([[AcceptRangeJoinHints]]). */
class RangeJoinHintsSuite extends RangeJoinTestBase {

  private def setUp(): Unit = {
    spark.range(0, 200).selectExpr("id", "id % 13 AS a", "id % 7 AS b").createOrReplaceTempView("p")
    spark.range(0, 150).selectExpr("id", "id % 11 AS a", "id % 5 AS b").createOrReplaceTempView("q")
  }

  private val hinted = Seq(
    "SELECT /*+ RANGE_JOIN(p, 10) */ p.id, q.id FROM p JOIN q ON p.a < q.a AND p.b > q.b",
    "SELECT /*+ range_join(q, 0.5) */ p.id, q.id FROM p LEFT JOIN q ON p.a BETWEEN q.a AND q.b",
    "SELECT /*+ RANGE_JOIN(q, 10), BROADCAST(q) */ p.id, q.id FROM p JOIN q ON p.a < q.a AND p.b > q.b"
  )

  private def hints(df: DataFrame) = df.queryExecution.analyzed.collect {
    case h: UnresolvedHint => h.name
    case h: ResolvedHint => h.hints.toString
  }

  /** The messages Spark's hint errors and the rule log at `level` while `body` runs. */
  private def logged[T](level: Level)(body: => T): Seq[String] = LogCapture.capture(
    level,
    "org.apache.spark.sql.catalyst.analysis.HintErrorLogger",
    classOf[AcceptRangeJoinHints].getName
  )(body)._2

  test("the hint is accepted in SQL and on a DataFrame: the join is planned as without it") {
    setUp()
    // The test sessions turn the broadcast range join off; the BROADCAST hint asks for it.
    val broadcast = Seq("false", "false", "true")
    val operators = Seq("IEJoin", "IEJoin", "BroadcastRangeJoin")
    for (((query, on), operator) <- hinted.zip(broadcast).zip(operators)) {
      withConf(RangeJoinConf.BroadcastEnabled.key -> on)(checkOperator(query, Some(operator)))
    }
    val p = spark.table("p")
    val q = spark.table("q").hint("range_join", 60)
    val df = p.join(q, p("a") < q("a") && p("b") > q("b"))
    assert(rangeJoins(df.queryExecution.executedPlan) == Seq("IEJoin"))
    // Analysed with the plugin on (checkOperator also runs each query with it off).
    val warnings = logged(Level.WARN) {
      for (query <- hinted) {
        val remaining = hints(spark.sql(query))
        assert(!remaining.exists(_.equalsIgnoreCase("RANGE_JOIN")), s"$query: $remaining")
      }
      val upper = spark.table("q").hint("RANGE_JOIN", 60)
      assert(hints(p.join(upper, p("a") < upper("a"))).isEmpty)
    }
    assert(warnings.isEmpty, "Spark warned of an unrecognized hint")
  }

  test("with the plugin off the hint is Spark's: dropped with its warning") {
    setUp()
    val warnings = logged(Level.WARN) {
      withConf(RangeJoinConf.Enabled.key -> "false") {
        val df = spark.sql(hinted.head)
        assert(rangeJoins(df.queryExecution.executedPlan).isEmpty)
      }
    }
    assert(warnings.exists(_.contains("RANGE_JOIN")), warnings)
  }

  test("the message that the bin size is not needed names the hint") {
    val hint =
      UnresolvedHint(
        "range_join",
        Seq(UnresolvedAttribute("points"), Literal(10)),
        spark.range(1).queryExecution.logical
      )
    assert(AcceptRangeJoinHints.accepted(hint).startsWith(
      "spark-rangejoin accepts the RANGE_JOIN hint (RANGE_JOIN(points, 10)) without its bin size"
    ))
  }
}
