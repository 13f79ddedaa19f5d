package rangejoin

import rangejoin.config.RangeJoinConf

/**
 * Every operator runs when its physical plan is executed directly, outside a SQL execution (as
 * Spark's own tests do through `df.rdd`): nothing on the driver touched the operators' metrics
 * before the tasks ran, and a task's copy of a node has no session to make them from.
 */
class PlanExecutionSuite extends RangeJoinTestBase {

  private def table(name: String, rows: Int, seed: Int): Unit =
    spark
      .range(rows)
      .selectExpr(
        "id",
        s"CAST(pmod(hash(id, $seed), 4) AS INT) AS k",
        s"pmod(hash(id, $seed + 1), 200) AS s",
        s"pmod(hash(id, $seed + 1), 200) + pmod(hash(id, $seed + 2), 30) AS e"
      )
      .createOrReplaceTempView(name)

  private val queries = Seq(
    "IEJoin" -> "SELECT l.id, r.id FROM l JOIN r ON l.s <= r.e AND l.e >= r.s",
    "PiecewiseMergeJoin" -> "SELECT l.id, r.id FROM l LEFT JOIN r ON l.s < r.s",
    "SlidingWindowJoin" ->
      "SELECT l.id, r.id FROM l JOIN r ON l.k = r.k AND l.s BETWEEN r.s - 5 AND r.s + 5",
    "KeyGroupIEJoin" -> "SELECT l.id, r.id FROM l FULL JOIN r ON l.k = r.k AND l.s <= r.e AND l.e >= r.s"
  )

  /** The rows of `query`'s physical plan, executed outside a SQL execution. */
  private def executedDirectly(query: String): Long =
    withConf("spark.sql.adaptive.enabled" -> "false") {
      spark.sql(query).queryExecution.executedPlan.execute().count()
    }

  test("each operator, executed directly, answers as vanilla Spark") {
    table("l", 150, 1)
    table("r", 120, 2)
    for ((operator, query) <- queries) {
      checkOperator(query, Some(operator))
      val expected = withConf(RangeJoinConf.Enabled.key -> "false")(spark.sql(query).count())
      assert(executedDirectly(query) == expected, operator)
    }
    withConf(RangeJoinConf.BroadcastEnabled.key -> "true") {
      val query = queries.head._2
      checkOperator(query, Some("BroadcastRangeJoin"))
      assert(executedDirectly(query) == spark.sql(query).count())
    }
  }
}
