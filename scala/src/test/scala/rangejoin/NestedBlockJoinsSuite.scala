package rangejoin

import rangejoin.config.RangeJoinConf

/**
 * Queries with one block join below another: the outer join's sorted blocks are persisted before
 * its load job asks for the inner join's partitions, so the inner join is prepared while the
 * outer one's blocks exist but cannot be computed yet. With coalesced inputs (no exchange between
 * the joins) the outer blocks' partitions are the inner join's partitions.
 */
class NestedBlockJoinsSuite extends RangeJoinTestBase {

  /** Runs `body` with the inputs coalesced (the defaults), then range-partitioned. */
  private def eachPartitioning(body: => Unit): Unit = {
    val defaults = Seq(RangeJoinConf.RangePartitionMinRows, RangeJoinConf.CoalesceMaxParallelism)
    withConf(defaults.map(entry => entry.key -> entry.default.toString): _*)(body)
    body
  }

  private def tables(): Unit = {
    spark.sql("SELECT cast(id AS string) AS begin FROM range(10)").createOrReplaceTempView("probe0")
    spark
      .sql("SELECT cast(id * 2 + 1 AS string) AS begin, cast(id AS int) AS value FROM range(10)")
      .createOrReplaceTempView("events0")
  }

  test("a string range join under a correlated NOT EXISTS on another range join", EveryLine) {
    tables()
    eachPartitioning {
      val (rows, _) = checkOperatorsPlan(
        """SELECT p.begin, e.value FROM probe0 p JOIN events0 e ON p.begin >= e.begin
        |WHERE NOT EXISTS (SELECT 1 FROM events0 r WHERE p.begin >= r.begin AND r.begin > e.begin)
        |""".stripMargin,
        Seq("IEJoin", "PiecewiseMergeJoin")
      )
      assert(rows == 9)
    }
  }

  test("two block joins stacked, every join type of the outer one", EveryLine) {
    tables()
    for (shape <- Seq("JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN")) eachPartitioning {
      checkOperatorsPlan(
        s"""SELECT i.b, i.value, q.begin FROM
           |  (SELECT p.begin AS b, e.value FROM probe0 p JOIN events0 e ON p.begin < e.begin) i
           |  $shape events0 q ON i.b > q.begin AND i.value < q.value""".stripMargin,
        Seq("IEJoin", "PiecewiseMergeJoin")
      )
    }
  }
}
