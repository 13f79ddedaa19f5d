package rangejoin

import scala.util.Random

import org.apache.spark.sql.execution.{ColumnarToRowExec, FilterExec, SparkPlan}
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types._

import rangejoin.config.RangeJoinConf
import rangejoin.execution.{BlockRangeJoinExec, ColumnBatchScan}
import rangejoin.execution.blocks.FixedWidthRows

/**
 * Block joins whose inputs are columnar scans cut their blocks from the scans' column batches
 * ([[ColumnBatchScan]]): against vanilla Spark on tables read from Parquet, with every key type
 * that has a fixed width, every join type, whole-stage codegen on and off, batches with and
 * without NULL keys, IS NOT NULL filters, and loads that spill part way.
 */
class ColumnBatchesSuite extends RangeJoinTestBase {

  private val ops = Seq("<", "<=", ">", ">=")
  private val joins =
    Seq("JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN", "LEFT SEMI JOIN", "LEFT ANTI JOIN")
  private val fixedWidthTypes = RandomTables.types.filter(FixedWidthRows.supports)

  /**
   * Writes tables `l` and `r` of `dt` to Parquet, with few NULLs so that some batches of 16 rows
   * have no NULL key and others do, and reads them back as views.
   */
  private def registerFiles(dt: DataType, seed: Long): Unit =
    for ((view, rows) <- Seq("l" -> 130, "r" -> 110)) {
      val dir = java.nio.file.Files.createTempDirectory(s"rangejoin-$view").toString
      RandomTables
        .table(spark, dt, rows, seed + view.hashCode, nullPercent = 2)
        .write
        .mode("overwrite")
        .parquet(dir)
      spark.read.parquet(dir).createOrReplaceTempView(view)
    }

  /** Small batches, and inputs coalesced (not shuffled), which are the ones read as batches. */
  private def batchConf(wholeStage: Boolean) = Seq(
    "spark.sql.parquet.columnarReaderBatchSize" -> "16",
    SQLConf.WHOLESTAGE_CODEGEN_ENABLED.key -> wholeStage.toString,
    RangeJoinConf.RangePartitionMinRows.key -> "1000000"
  )

  private def blockJoins(plan: SparkPlan): Seq[BlockRangeJoinExec] =
    collect(plan) { case j: BlockRangeJoinExec => j }

  /** The EXPLAIN line of the plan's block join says the left input is read as column batches. */
  private def assertReadsBatches(plan: SparkPlan, expected: Boolean = true): Unit = {
    val join = blockJoins(plan).head
    val line = join.simpleString(100)
    assert(line.contains("left coalesced, column batches") == expected, s"$line over\n${join.left}")
  }

  // Spark's Parquet reader gives batches only with whole-stage codegen on: with it off, the same
  // queries read rows.
  for (wholeStage <- Seq(true, false)) {
    test(s"fixed-width keys, every join type, match vanilla (whole-stage codegen $wholeStage)") {
      val rnd = new Random(if (wholeStage) 11 else 12)
      withConf(batchConf(wholeStage): _*) {
        for (dt <- fixedWidthTypes) {
          registerFiles(dt, rnd.nextInt(1000).toLong)
          for (join <- joins) {
            val (op1, op2) = (ops(rnd.nextInt(4)), ops(rnd.nextInt(4)))
            val columns = if (join.contains("SEMI") || join.contains("ANTI")) "l.*" else "l.*, r.*"
            // `l.c <> r.c` has the optimizer filter an inner join's inputs on a column that is
            // not a key, as well as on the keys.
            val residual = if (rnd.nextBoolean()) " AND l.c <> r.c" else ""
            val q = s"SELECT $columns FROM l $join r ON l.a $op1 r.a AND l.b $op2 r.b$residual"
            assertReadsBatches(checkOperatorPlan(q, Some("IEJoin"))._2, expected = wholeStage)
          }
          val one = s"SELECT l.id, r.id FROM l LEFT JOIN r ON l.a ${ops(rnd.nextInt(4))} r.b"
          val plan = checkOperatorPlan(one, Some("PiecewiseMergeJoin"))._2
          assertReadsBatches(plan, expected = wholeStage)
        }
      }
    }
  }

  test("a self-join on swapped keys loads its input's batches once") {
    withConf(batchConf(wholeStage = true): _*) {
      registerFiles(LongType, seed = 5)
      val q = "SELECT l.id, x.id FROM l JOIN l x ON l.a < x.b AND l.b > x.a AND l.id <> x.id"
      val line = blockJoins(checkOperatorPlan(q, Some("IEJoin"))._2).head.simpleString(100)
      assert(line.contains("column batches, right the left's blocks, keys 0 and 1 swapped"), line)
    }
  }

  test(
    "a load that stops at sortSpillRows hands the rest of its batches to the external sort",
    Spills
  ) {
    withConf(batchConf(wholeStage = true) :+ (RangeJoinConf.SortSpillRows.key -> "37"): _*) {
      registerFiles(DoubleType, seed = 7)
      for (join <- Seq("JOIN", "FULL JOIN")) {
        assertReadsBatches(
          checkOperatorPlan(
            s"SELECT l.id, r.id FROM l $join r ON l.a < r.a AND l.b >= r.b",
            Some("IEJoin")
          )._2
        )
      }
    }
  }

  test("inputs that are not a columnar scan of fixed-width columns are read as rows") {
    withConf(batchConf(wholeStage = true): _*) {
      registerFiles(IntegerType, seed = 9)
      // A filter that is not only IS NOT NULL conditions.
      val filtered = "SELECT l.id, r.id FROM l JOIN r ON l.a < r.a AND l.b > r.b WHERE l.c > 0"
      assertReadsBatches(checkOperatorPlan(filtered, Some("IEJoin"))._2, expected = false)
      // A key that is an expression is projected from each row.
      val expression = "SELECT l.id, r.id FROM l JOIN r ON l.a + 1 < r.a AND l.b > r.b"
      assertReadsBatches(checkOperatorPlan(expression, Some("IEJoin"))._2, expected = false)
      withConf(RangeJoinConf.ColumnBatchesEnabled.key -> "false") {
        val q = "SELECT l.id, r.id FROM l JOIN r ON l.a < r.a AND l.b > r.b"
        assertReadsBatches(checkOperatorPlan(q, Some("IEJoin"))._2, expected = false)
      }
      withConf("spark.sql.parquet.enableVectorizedReader" -> "false") {
        val q = "SELECT l.id, r.id FROM l JOIN r ON l.a < r.a AND l.b > r.b"
        assertReadsBatches(checkOperatorPlan(q, Some("IEJoin"))._2, expected = false)
      }
      // A column of variable width.
      registerFiles(StringType, seed = 9)
      val strings = "SELECT l.id, r.id FROM l JOIN r ON l.a < r.a AND l.b > r.b"
      assertReadsBatches(checkOperatorPlan(strings, Some("IEJoin"))._2, expected = false)
    }
  }

  test("the conversion's and the filter's row counts are those the join read") {
    withConf(batchConf(wholeStage = true): _*) {
      registerFiles(IntegerType, seed = 13)
      val df = spark.sql("SELECT l.id, r.id FROM l JOIN r ON l.a < r.a AND l.b > r.b")
      df.collect()
      val plan = df.queryExecution.executedPlan
      assertReadsBatches(plan)
      val join = blockJoins(plan).head
      for ((side, rows) <- Seq(join.left -> 130, join.right -> 110)) {
        val scan = ColumnBatchScan.of(side)
        assert(scan.exists(_.notNull.nonEmpty), s"an IS NOT NULL filter is expected in\n$side")
        val converted = collect(side) { case c: ColumnarToRowExec => c.metrics("numOutputRows") }
        assert(converted.map(_.value) == Seq(rows.toLong))
        val kept = collect(side) { case f: FilterExec => f.metrics("numOutputRows").value }
        val view = if (side eq join.left) "l" else "r"
        val nonNull = spark.table(view).where("a IS NOT NULL AND b IS NOT NULL").count()
        assert(kept == Seq(nonNull))
      }
    }
  }
}

/** The spill tests of [[ColumnBatchesSuite]] with local disk I/O encrypted. */
class EncryptedColumnBatchesSuite extends ColumnBatchesSuite with EncryptedSpills
