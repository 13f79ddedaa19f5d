package rangejoin

import org.apache.spark.sql.catalyst.optimizer.{BuildLeft, BuildRight}
import org.apache.spark.sql.types.DataType

import rangejoin.config.RangeJoinConf
import rangejoin.execution.BroadcastRangeJoinExec
import rangejoin.execution.blocks.{KeyEncoder, LongKeyEncoder}

/**
 * BroadcastRangeJoinExec against vanilla Spark: the differential harness's queries with the
 * broadcast join on, whole-stage codegen on and off, and point-in-interval joins of every join
 * type it runs.
 */
class BroadcastRangeJoinSuite extends RangeJoinTestBase {

  private def broadcastOn[T](body: => T): T =
    withConf(RangeJoinConf.BroadcastEnabled.key -> "true")(body)

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

  for (wholeStage <- Seq("true", "false")) {
    test(s"random queries match vanilla Spark (whole-stage codegen $wholeStage)") {
      val counts = scala.collection.mutable.Map.empty[String, Int].withDefaultValue(0)
      broadcastOn {
        withConf("spark.sql.codegen.wholeStage" -> wholeStage) {
          for (seed <- 5000L until 5100L) {
            val q = DifferentialHarness.query(spark, seed)
            val operator = expectedOperator(q)
            withClue(s"seed $seed (${q.dataType.simpleString}): ${q.sql}\n") {
              checkOperator(q.sql, Some(operator))
            }
            counts(operator) += 1
          }
        }
      }
      info(counts.toSeq.sorted.mkString(", "))
      assert(counts("BroadcastRangeJoin") > 50)
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

  test("points in ranges, every join type it runs, with the broadcast input as Spark would pick") {
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
      s"SELECT r.rid, count(*) FROM points p JOIN few r ON $on AND p.id % 3 <> 0 GROUP BY r.rid" ->
        BuildRight,
      "SELECT p.id, r.rid FROM points p JOIN few r ON p.v BETWEEN r.lo - 7 AND r.hi + 7" ->
        BuildRight,
      "SELECT p.id, r.rid FROM points p LEFT JOIN few r ON p.v > r.lo AND p.id < r.hi " +
        "AND p.v < r.rid * 600" -> BuildRight
    )
    broadcastOn {
      for ((q, side) <- queries; wholeStage <- Seq("true", "false")) {
        withConf("spark.sql.codegen.wholeStage" -> wholeStage) {
          withClue(s"$q (whole-stage codegen $wholeStage)\n") {
            assert(checkOperator(q, Some("BroadcastRangeJoin")) > 0)
            val joins = collect(spark.sql(q).queryExecution.executedPlan) {
              case j: BroadcastRangeJoinExec => j
            }
            assert(joins.map(_.buildSide) == Seq(side))
          }
        }
      }
    }
  }

  test("EXPLAIN names the index and the broadcast input; a large input is not broadcast") {
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
      withConf("spark.sql.autoBroadcastJoinThreshold" -> "-1") {
        checkOperator(q, Some("IEJoin"))
      }
      // Full outer joins preserve both inputs: never broadcast.
      checkOperator(q.replace("LEFT JOIN", "FULL JOIN"), Some("IEJoin"))
    }
  }
}
