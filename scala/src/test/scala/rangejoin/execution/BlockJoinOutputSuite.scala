package rangejoin.execution

import org.apache.spark.sql.execution.{SparkPlan, WholeStageCodegenExec}
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types.DoubleType

import rangejoin.{RandomTables, RangeJoinTestBase}

/**
 * The generated code above a block join reads its output rows as views of the pairs
 * ([[BlockJoinOutputExec]]): every join type, consumed by an aggregate (columns read one by one)
 * and output as rows (the stage's unsafe rows), against vanilla Spark, with the node inside a
 * generated stage when codegen is on and running alone when it is off.
 */
class BlockJoinOutputSuite extends RangeJoinTestBase {

  private val joins = Seq(
    "JOIN" -> "l.id, l.c, r.id, r.c",
    "LEFT JOIN" -> "l.id, l.c, r.id, r.c",
    "RIGHT JOIN" -> "l.id, l.c, r.id, r.c",
    "FULL JOIN" -> "l.id, l.c, r.id, r.c",
    "LEFT SEMI JOIN" -> "l.id, l.c",
    "LEFT ANTI JOIN" -> "l.id, l.c"
  )

  private def inGeneratedStage(plan: SparkPlan): Boolean =
    collect(plan) { case stage: WholeStageCodegenExec => stage }
      .exists(_.child.find(_.isInstanceOf[BlockJoinOutputExec]).isDefined)

  private def outputNodes(plan: SparkPlan): Int =
    collect(plan) { case o: BlockJoinOutputExec => o }.size

  for (codegen <- Seq(true, false)) {
    test(s"every join type, rows and aggregates, match vanilla (whole-stage codegen $codegen)") {
      withConf(SQLConf.WHOLESTAGE_CODEGEN_ENABLED.key -> codegen.toString) {
        for (seed <- 1 to 3) {
          RandomTables.table(spark, DoubleType, 60, seed).createOrReplaceTempView("l")
          RandomTables.table(spark, DoubleType, 45, seed + 100).createOrReplaceTempView("r")
          for ((join, columns) <- joins) {
            val on = "ON l.a < r.a AND l.b >= r.b AND l.id <> r.id"
            val rowsQuery = s"SELECT $columns FROM l $join r $on"
            val aggregate =
              s"SELECT count(*), count(${columns.split(", ").last}), sum(l.id) FROM l $join r $on"
            for (query <- Seq(rowsQuery, aggregate)) {
              val (_, plan) = checkOperatorPlan(query, Some("IEJoin"))
              assert(outputNodes(plan) == 1, plan)
              assert(inGeneratedStage(plan) == codegen, plan)
            }
          }
        }
      }
    }
  }

  test("an existence join (EXISTS under OR) and a one-inequality join read views too") {
    RandomTables.table(spark, DoubleType, 60, 7).createOrReplaceTempView("l")
    RandomTables.table(spark, DoubleType, 45, 8).createOrReplaceTempView("r")
    val (_, existence) = checkOperatorPlan(
      "SELECT l.id FROM l WHERE l.id < 5 OR EXISTS " +
        "(SELECT 1 FROM r WHERE l.a < r.a AND l.b > r.b AND l.c <> r.c)",
      Some("IEJoin")
    )
    assert(inGeneratedStage(existence), existence)
    val (_, merge) = checkOperatorPlan(
      "SELECT l.id, r.id FROM l JOIN r ON l.a < r.a AND l.c <> r.c",
      Some("PiecewiseMergeJoin")
    )
    assert(inGeneratedStage(merge), merge)
  }
}
