package org.apache.spark.sql.execution.rangejoin

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{
  AttributeReference,
  BoundReference,
  UnsafeProjection,
  UnsafeRow
}
import org.apache.spark.sql.execution.metric.SQLMetrics
import org.apache.spark.sql.execution.rangejoin.LocalDiskFiles.Scanned
import org.apache.spark.sql.types.{DataType, IntegerType, StringType}
import org.apache.spark.unsafe.types.UTF8String

import rangejoin.{OwnSession, RangeJoinTestBase}
import rangejoin.execution.blocks.{BlockLoader, CachedBlocks, KeyEncoder}

/**
 * What the operators write to local disk, read as it lies on disk: rows holding a marker string
 * are spilled by each of the ways the plugin writes to disk, and the files of the block manager
 * are searched for the marker while they exist. Without I/O encryption the marker must be there
 * (so the search can find it); with it ([[EncryptedSpillFilesSuite]]) it must not: every path
 * writes through Spark's serializer manager or block manager, which encrypt. Either way the rows
 * must read back as they were written.
 *
 * Spark's compression of spills and cached blocks is off, so that only encryption can hide the
 * rows; the memory is small, so that sorted blocks of a larger input go to disk.
 */
class SpillFilesSuite extends RangeJoinTestBase with OwnSession {
  import SpillFilesSuite.markedRows

  /** Whether the session encrypts what Spark writes to local disk. */
  def encrypted: Boolean = false

  override def sessionSettings: Seq[(String, String)] = super.sessionSettings ++ Seq(
    "spark.io.encryption.enabled" -> encrypted.toString,
    "spark.shuffle.spill.compress" -> "false",
    "spark.rdd.compress" -> "false",
    "spark.testing.memory" -> (64L << 20).toString,
    "spark.testing.reservedMemory" -> "0"
  )

  private val marker = "RANGEJOIN-PLAIN-ROW-MARKER"

  private val schema = Seq(
    AttributeReference("id", IntegerType, nullable = false)(),
    AttributeReference("s", StringType)()
  )

  /**
   * Asserts that some bytes are on disk in `files` (those a test's spill made), and that the
   * marker is among them exactly when the session does not encrypt.
   */
  private def checkFiles(files: Seq[Scanned]): Unit = {
    assert(files.exists(_.length > 0), s"nothing on disk: $files")
    val plain = files.filter(_.holdsMarker).map(_.name)
    if (encrypted) assert(plain.isEmpty, s"rows on disk in the clear, in $plain")
    else assert(plain.nonEmpty, s"the rows should be on disk in the clear, in one of $files")
  }

  test("the session encrypts local disk I/O exactly when the suite says so") {
    assert(spark.sparkContext.getConf.getBoolean("spark.io.encryption.enabled", false) == encrypted)
  }

  test("a load's spill file of the rows it held (RecordSpills)") {
    val marker = this.marker
    val (files, bytes, readBack) = spark.sparkContext
      .parallelize(Seq(0), 1)
      .mapPartitions { _ =>
        val rows = markedRows(300, marker)
        val before = LocalDiskFiles.scan(marker)
        val (back, bytes) = RecordSpills.spill(rows.iterator, rows.size, numFields = 2)
        val files = LocalDiskFiles.scan(marker).diff(before) // deleted once read back
        Iterator((files, bytes, back.map(_.getUTF8String(1).toString).toList))
      }
      .collect()
      .head
    assert(bytes > 0)
    checkFiles(files)
    assert(readBack == markedRows(300, marker).map(_.getUTF8String(1).toString))
  }

  test("a load's sorted runs past sortSpillRows (Spark's external sorter)") {
    val marker = this.marker
    val loader = new BlockLoader(
      schema,
      Seq(BoundReference(0, IntegerType, nullable = false)),
      Seq(KeyEncoder.forType(IntegerType)),
      blockRows = 16,
      spillRows = 10,
      ordersKey1 = false
    )
    val spillSize = SQLMetrics.createSizeMetric(spark.sparkContext, "spill size")
    val peakMemory = SQLMetrics.createSizeMetric(spark.sparkContext, "peak memory")
    val (files, ids) = spark.sparkContext
      .parallelize(Seq(0), 1)
      .mapPartitions { _ =>
        val before = LocalDiskFiles.scan(marker)
        var files = Seq.empty[Scanned]
        // Searched once the input has run out: the sorter then holds its runs on disk, which it
        // deletes once the blocks are cut.
        val input: Iterator[InternalRow] = markedRows(300, marker).iterator ++ {
          files = LocalDiskFiles.scan(marker).diff(before)
          Iterator[InternalRow]()
        }
        val ids = loader.load(input, spillSize, peakMemory).flatMap { block =>
          val row = new UnsafeRow(2)
          (0 until block.size).map(i => block.rows.row(i, row).getInt(0))
        }.toList
        Iterator((files, ids))
      }
      .collect()
      .head
    assert(spillSize.value > 0)
    checkFiles(files)
    assert(ids == (0 until 300))
  }

  test("a sliding window's rows past the buffer's spill threshold (SpillableRowArray)") {
    val marker = this.marker
    val (files, spilled, readBack) = spark.sparkContext
      .parallelize(Seq(0), 1)
      .mapPartitions { _ =>
        val before = LocalDiskFiles.scan(marker)
        val window = new SpillableRowArray(SpillThresholds(1, 4, Long.MaxValue))
        markedRows(300, marker).foreach(window.add)
        val files = LocalDiskFiles.scan(marker).diff(before)
        val readBack = window.iterator(0).map(_.getUTF8String(1).toString).toList
        val spilled = window.spillSize
        window.clear()
        Iterator((files, spilled, readBack))
      }
      .collect()
      .head
    assert(spilled > 0)
    checkFiles(files)
    assert(readBack == markedRows(300, marker).map(_.getUTF8String(1).toString))
  }

  test("sorted blocks that do not fit in memory (the block manager's MEMORY_AND_DISK cache)") {
    // About 50 MB of rows in two partitions, more than the 38 MB the memory manager shares out.
    val rows = 50000
    val input = spark
      .range(0, rows, 1, 2)
      .selectExpr("CAST(id AS INT) AS id", s"concat('$marker ', repeat('x', 1000)) AS s")
    val loader = new BlockLoader(
      input.queryExecution.analyzed.output,
      Seq(BoundReference(0, IntegerType, nullable = false)),
      Seq(KeyEncoder.forType(IntegerType)),
      blockRows = 256,
      spillRows = Int.MaxValue,
      ordersKey1 = false
    )
    val spillSize = SQLMetrics.createSizeMetric(spark.sparkContext, "spill size")
    val peakMemory = SQLMetrics.createSizeMetric(spark.sparkContext, "peak memory")
    val cached = CachedBlocks[InternalRow](
      input.queryExecution.toRdd,
      identity,
      loader,
      spillSize,
      peakMemory
    )
    val before = LocalDiskFiles.scan(marker)
    try {
      cached.load().get()
      assert(CachedBlocks.bytesOnDisk(Seq(cached)) > 0)
      // Local mode: the driver's block manager is the executor's.
      checkFiles(LocalDiskFiles.scan(marker).diff(before).filter(_.name.startsWith("rdd_")))
      assert(cached.blocks.map(_.size.toLong).sum() == rows)
    } finally cached.blocks.unpersist(blocking = true)
  }
}

/** [[SpillFilesSuite]] with local disk I/O encrypted: no plain row on disk. */
class EncryptedSpillFilesSuite extends SpillFilesSuite {
  override def encrypted: Boolean = true
}

object SpillFilesSuite {

  /** Rows (id, "<marker> id") for ids `0 until n`, in a scrambled order. */
  def markedRows(n: Int, marker: String): Seq[UnsafeRow] = {
    val toUnsafe = UnsafeProjection.create(Array[DataType](IntegerType, StringType))
    (0 until n).map { i =>
      val id = (i * 7919) % n
      toUnsafe(InternalRow(id, UTF8String.fromString(s"$marker $id"))).copy()
    }
  }
}
