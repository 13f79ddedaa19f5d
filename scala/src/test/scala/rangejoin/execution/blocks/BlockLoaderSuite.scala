package rangejoin.execution.blocks

import org.apache.spark.TaskContext
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, BoundReference, UnsafeRow}
import org.apache.spark.sql.execution.metric.SQLMetrics
import org.apache.spark.sql.execution.rangejoin.MemoryHog
import org.apache.spark.sql.types.{DoubleType, IntegerType}

import rangejoin.{EncryptedSpills, RangeJoinTestBase, Spills}
import rangejoin.config.RangeJoinConf
import rangejoin.execution.ColumnBatchScan

/**
 * BlockLoader cuts partitions into sorted blocks, in memory or through Spark's external sorter:
 * block order and size, NULL keys, a hot key split across blocks, determinism, and spilling.
 */
class BlockLoaderSuite extends RangeJoinTestBase {

  private val blockRows = 16

  /** (id, v): v NULL for every 9th row (45 rows), else 100 for 54 rows (a hot key), else id % 37. */
  private def input(shuffleSeed: Int) = spark
    .range(0, 400)
    .selectExpr(
      "id",
      "CASE WHEN id % 9 = 0 THEN NULL WHEN id % 5 = 1 AND id < 300 THEN 100 " +
        "ELSE CAST(id % 37 AS INT) END AS v"
    )
    .orderBy(org.apache.spark.sql.functions.rand(shuffleSeed))
    .coalesce(1)

  /** A loader of `df`'s rows keyed on its second column, an int. */
  private def loaderOf(df: org.apache.spark.sql.DataFrame, spillRows: Int) = new BlockLoader(
    df.queryExecution.analyzed.output,
    Seq(BoundReference(1, IntegerType, nullable = true)),
    Seq(KeyEncoder.forType(IntegerType)),
    blockRows,
    spillRows,
    ordersKey1 = false
  )

  /**
   * Per block: whether it holds NULL-key rows, its rows in hex (sorted: rows with equal keys may
   * come in any order within a block), and its keys.
   */
  private def load(shuffleSeed: Int, spillRows: Int) = {
    val df = input(shuffleSeed)
    val loader = loaderOf(df, spillRows)
    val spillSize = SQLMetrics.createSizeMetric(spark.sparkContext, "spill size")
    val peakMemory = SQLMetrics.createSizeMetric(spark.sparkContext, "peak memory")
    val blocks = df.queryExecution.toRdd
      .mapPartitions { rows =>
        loader.load(rows, spillSize, peakMemory).map { b =>
          val packed = if (b.size == 0) b.nullKeyRows else b.rows
          val row = new UnsafeRow(packed.numFields)
          val hex = (0 until packed.size).map(i => packed.row(i, row).toString).sorted
          val keys = b.keys.headOption.collect { case LongCodes(c) => c.toSeq }.getOrElse(Nil)
          (b.size == 0, hex, keys)
        }
      }
      .collect()
      .toSeq
    (blocks, spillSize.value, peakMemory.value)
  }

  test("blocks: NULL keys first and apart, then ascending keys, at most blockRows rows each") {
    val (blocks, _, peak) = load(shuffleSeed = 1, spillRows = Int.MaxValue)
    assert(blocks.map(_._2.size).sum == 400)
    assert(blocks.forall(_._2.size <= blockRows))
    val (nullBlocks, keyed) = blocks.span(_._1)
    assert(nullBlocks.map(_._2.size).sum == 45) // ids 0, 9, ..., 396
    assert(keyed.forall(!_._1))
    val keys = keyed.flatMap(_._3)
    assert(keys == keys.sorted)
    assert(peak > 0)
  }

  test(
    "rows read as column batches are cut into the blocks of the same rows read one by one",
    Spills
  ) {
    // Every fixed-width type, NULLs in keys and other columns, NaN and -0.0, in batches of 16.
    val dir = java.nio.file.Files.createTempDirectory("rangejoin-batches").toString
    spark
      .range(0, 700, 1, 1)
      .selectExpr(
        "id",
        "CASE WHEN id % 97 = 0 THEN NULL WHEN id % 13 = 0 THEN CAST('NaN' AS DOUBLE) " +
          "WHEN id % 11 = 0 THEN -0.0D ELSE (id % 50) / 4.0D END AS k0",
        "CASE WHEN id % 89 = 0 THEN NULL ELSE CAST(pmod(hash(id), 40) AS INT) END AS k1",
        "CASE WHEN id % 7 = 0 THEN NULL ELSE CAST(id % 5 AS BYTE) END AS b",
        "CAST(id % 300 AS SHORT) AS s",
        "CASE WHEN id % 17 = 0 THEN CAST('NaN' AS FLOAT) WHEN id % 3 = 0 THEN -0.0F " +
          "WHEN id % 23 = 0 THEN NULL ELSE CAST(id AS FLOAT) / 8 END AS f",
        "id % 2 = 0 AS flag",
        "DATE_ADD(DATE'2024-01-01', CAST(id % 60 AS INT)) AS d",
        "TIMESTAMP_SECONDS(1700000000 + id * 7) AS ts",
        "CASE WHEN id % 29 = 0 THEN NULL ELSE TIMESTAMP_NTZ'2024-01-01 00:00:00' END AS ntz",
        "MAKE_YM_INTERVAL(CAST(id % 7 AS INT), 1) AS ym",
        "CASE WHEN id % 31 = 0 THEN NULL ELSE MAKE_DT_INTERVAL(CAST(id % 3 AS INT), 1) END AS dt"
      )
      .write
      .mode("overwrite")
      .parquet(dir)
    def blocksOf(filter: String, spillRows: Int, asBatches: Boolean) =
      withConf("spark.sql.parquet.columnarReaderBatchSize" -> "16") {
        val df = spark.read.parquet(dir).where(filter)
        val loader = new BlockLoader(
          df.queryExecution.analyzed.output,
          Seq(BoundReference(1, DoubleType, nullable = true), BoundReference(2, IntegerType, true)),
          Seq(KeyEncoder.forType(DoubleType), KeyEncoder.forType(IntegerType)),
          blockRows,
          spillRows,
          ordersKey1 = true
        )
        val spillSize = SQLMetrics.createSizeMetric(spark.sparkContext, "spill size")
        val peakMemory = SQLMetrics.createSizeMetric(spark.sparkContext, "peak memory")
        def described(blocks: Iterator[Block]) = blocks.map { b =>
          val packed = if (b.size == 0) b.nullKeyRows else b.rows
          val row = new UnsafeRow(packed.numFields)
          val hex = (0 until packed.size).map(i => packed.row(i, row).toString).sorted
          val codes = b.keys.toSeq.collect { case LongCodes(c) => c.toSeq }
          val key1InOrder = b.key1Order.toSeq.map(codes(1)(_))
          (b.size == 0, hex, codes.headOption, codes.drop(1).map(_.sorted), key1InOrder)
        }
        val blocks =
          if (!asBatches) {
            df.queryExecution.toRdd
              .mapPartitions(rows => described(loader.load(rows, spillSize, peakMemory)))
              .collect()
          } else {
            val scan = ColumnBatchScan.of(df.queryExecution.executedPlan)
            assert(scan.isDefined, df.queryExecution.executedPlan)
            val rows = scan.get.rows
            scan.get.batches
              .mapPartitions(b => described(loader.load(rows(b), spillSize, peakMemory)))
              .collect()
          }
        assert(blocks.map(_._2.size).sum > 500)
        blocks.toSeq
      }
    for (filter <- Seq("true", "f IS NOT NULL", "b IS NOT NULL AND k0 IS NOT NULL")) {
      val rows = blocksOf(filter, Int.MaxValue, asBatches = false)
      assert(blocksOf(filter, Int.MaxValue, asBatches = true) == rows, filter)
      assert(blocksOf(filter, spillRows = 45, asBatches = true) == rows, filter)
    }
  }

  test("a run of one key longer than a block is split across blocks") {
    val (blocks, _, _) = load(shuffleSeed = 2, spillRows = Int.MaxValue)
    val hot = blocks.map(_._3.count(_ == 100L)).filter(_ > 0)
    assert(hot.sum == 54)
    assert(hot.size >= 4) // ceil(54 / 16)
  }

  test(
    "the same rows in any arrival order, sorted in memory or spilled, cut into the same blocks",
    Spills
  ) {
    val (reference, noSpill, _) = load(shuffleSeed = 3, spillRows = Int.MaxValue)
    assert(noSpill == 0)
    val (shuffled, _, _) = load(shuffleSeed = 4, spillRows = Int.MaxValue)
    assert(shuffled == reference)
    // Past spillRows the loader hands what it buffered to the external sorter, which spills.
    val (spilled, spillSize, _) = load(shuffleSeed = 5, spillRows = 10)
    assert(spillSize > 0)
    assert(spilled == reference)
    val (sortedOnce, noSpillEither, _) = load(shuffleSeed = 6, spillRows = 400)
    assert(noSpillEither == 0)
    assert(sortedOnce == reference)
  }

  test("a task that reads a load's first blocks only ends holding none of the load's memory") {
    // A block-pair task that rebuilds a partition whose cache was dropped (its output read after
    // the query's execution ended) reads only the blocks its pairs need. The session fails a
    // task that ends holding execution memory.
    val df = input(shuffleSeed = 7)
    for (spillRows <- Seq(Int.MaxValue, 10)) { // sorted in memory; by Spark's external sorter
      val loader = loaderOf(df, spillRows)
      val spillSize = SQLMetrics.createSizeMetric(spark.sparkContext, "spill size")
      val peakMemory = SQLMetrics.createSizeMetric(spark.sparkContext, "peak memory")
      val sizes = df.queryExecution.toRdd
        .mapPartitions(rows => loader.load(rows, spillSize, peakMemory).take(2).map(_.size))
        .collect()
      assert(sizes.length == 2, s"spillRows $spillRows")
      assert(peakMemory.value > 0)
    }
  }

  // The task leaves one page of the external sorter free and some more, so the in-memory load of
  // rows of about 1 KB is refused part way, and the sorter then needs the memory it gave back.
  private def leave = MemoryHog.pageBytes(spark) + (16L << 20)

  /**
   * Loads the one partition of `input` (whose partitions `rows` turns into rows of `schema`),
   * keyed on its int column 1, twice: with all memory, and with all of the task's memory but
   * [[leave]] taken first, which refuses the in-memory load part way. Both cut `expectedRows`
   * rows into the same blocks (per block, its key codes and its rows' column 0), and only the
   * second spills.
   */
  private def checkRefusedLoad[T](
      input: org.apache.spark.rdd.RDD[T],
      rows: Iterator[T] => Iterator[InternalRow],
      schema: Seq[Attribute],
      expectedRows: Long
  ): Unit = {
    val loader = new BlockLoader(
      schema,
      Seq(BoundReference(1, IntegerType, nullable = false)),
      Seq(KeyEncoder.forType(IntegerType)),
      blockRows = 4096,
      spillRows = Int.MaxValue,
      ordersKey1 = false
    )
    val (leaveBytes, numFields) = (leave, schema.size) // the tasks take these, not the suite
    def load(hogged: Boolean) = {
      val spillSize = SQLMetrics.createSizeMetric(spark.sparkContext, "spill size")
      val peakMemory = SQLMetrics.createSizeMetric(spark.sparkContext, "peak memory")
      val blocks = input
        .mapPartitions { partition =>
          if (hogged) {
            val hog = new MemoryHog(leaveBytes)
            TaskContext.get().addTaskCompletionListener[Unit](_ => hog.release())
          }
          val row = new UnsafeRow(numFields)
          loader.load(rows(partition), spillSize, peakMemory).map { b =>
            val codes = b.keys.head.asInstanceOf[LongCodes].codes.toSeq
            (codes, (0 until b.size).map(i => b.rows.row(i, row).getLong(0)).sorted)
          }
        }
        .collect()
        .toSeq
      (blocks, spillSize.value)
    }
    val (inMemory, noSpill) = load(hogged = false)
    assert(noSpill == 0)
    assert(inMemory.map(_._2.size).sum == expectedRows)
    val (refused, spilled) = load(hogged = true)
    assert(spilled >= leave / 2, "the load should have been refused part way")
    assert(refused == inMemory)
  }

  test(
    "a load refused memory spills what it took, gives the memory back, and cuts the same blocks",
    Spills
  ) {
    val rows = leave * 5 / 4 / 1000
    val df = spark
      .range(0, rows, 1, 1)
      .selectExpr("id", "CAST(pmod(hash(id), 1000) AS INT) AS v", "repeat('x', 960) AS pad")
    val schema = df.queryExecution.analyzed.output
    checkRefusedLoad[InternalRow](df.queryExecution.toRdd, identity, schema, rows)
  }

  test(
    "a load of column batches refused memory part way hands its other batches on as rows",
    Spills
  ) {
    // Rows of 752 bytes: 92 columns, fewer than whole-stage codegen's limit, under which Spark's
    // Parquet reader gives batches.
    val rows = leave * 5 / 4 / 752
    val dir = java.nio.file.Files.createTempDirectory("rangejoin-refused").toString
    val wide = (1 to 90).map(i => s"id * $i AS c$i")
    spark
      .range(0, rows, 1, 1)
      .selectExpr(Seq("id", "CAST(pmod(hash(id), 1000) AS INT) AS v") ++ wide: _*)
      .write
      .mode("overwrite")
      .parquet(dir)
    val df = spark.read.parquet(dir)
    val scan = ColumnBatchScan.of(df.queryExecution.executedPlan)
    assert(scan.isDefined, df.queryExecution.executedPlan)
    // One task: the file may be split in two, and two tasks that each take nearly all memory
    // would refuse each other.
    val batches = scan.get.batches.coalesce(1)
    checkRefusedLoad(batches, scan.get.rows, df.queryExecution.analyzed.output, rows)
  }

  test(
    "joins whose block inputs spill while sorting match vanilla and report spill and memory",
    Spills
  ) {
    spark
      .range(0, 300)
      .selectExpr(
        "id",
        "CASE WHEN id % 11 = 0 THEN NULL ELSE CAST(id % 23 AS INT) END AS a",
        "CAST(pmod(hash(id), 50) AS DOUBLE) AS b"
      )
      .localCheckpoint()
      .createOrReplaceTempView("sp")
    val queries = Seq(
      "SELECT x.id, y.id FROM sp x JOIN sp y ON x.a < y.a AND x.b >= y.b",
      "SELECT x.id, y.id FROM sp x FULL JOIN sp y ON x.a <= y.a AND x.b < y.b - 20",
      "SELECT x.id FROM sp x LEFT ANTI JOIN sp y ON x.a > y.a AND x.b > y.b + 30",
      "SELECT x.id, y.id FROM sp x LEFT JOIN sp y ON x.a > y.a + 20",
      "SELECT x.id, y.id FROM sp x RIGHT JOIN sp y ON x.b < y.b - 45"
    )
    withConf(RangeJoinConf.SortSpillRows.key -> "10") {
      queries.foreach { q =>
        val operator = if (q.contains("AND")) "IEJoin" else "PiecewiseMergeJoin"
        checkOperator(q, Some(operator))
        val df = spark.sql(q)
        df.collect()
        val joins = collect(df.queryExecution.executedPlan) {
          case j: rangejoin.execution.BlockRangeJoinExec => j
        }
        assert(joins.nonEmpty)
        assert(joins.map(_.metrics("spillSize").value).sum > 0, q)
        assert(joins.map(_.metrics("peakMemory").value).sum > 0, q)
      }
    }
  }
}

/** The spill tests of [[BlockLoaderSuite]] with local disk I/O encrypted. */
class EncryptedBlockLoaderSuite extends BlockLoaderSuite with EncryptedSpills
