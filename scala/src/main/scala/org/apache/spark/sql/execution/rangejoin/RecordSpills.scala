package org.apache.spark.sql.execution.rangejoin

import org.apache.spark.{SparkEnv, TaskContext}
import org.apache.spark.executor.ShuffleWriteMetrics
import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.util.collection.unsafe.sort.UnsafeSorterSpillWriter

/**
 * Unsafe rows written to a local spill file and read back, through the spill files of Spark's
 * external sorter (compressed and encrypted as Spark's settings ask). This object exists because
 * the block manager those files go through is private to Spark.
 */
object RecordSpills {

  /** The write buffer, as Spark's sorters use (`spark.shuffle.file.buffer`'s default). */
  private val FileBufferBytes = 32 * 1024

  /**
   * Writes `count` rows of `numFields` fields to a spill file and returns them read back in the
   * same order, once, each valid until the next is read, and the bytes of the rows. The task's
   * spill metrics count the bytes; the file is closed and deleted once read to its end, or when
   * the task ends.
   */
  def spill(rows: Iterator[UnsafeRow], count: Int, numFields: Int): (Iterator[UnsafeRow], Long) =
    if (count == 0) (Iterator.empty, 0L)
    else {
      val env = SparkEnv.get
      val context = TaskContext.get()
      val writer =
        new UnsafeSorterSpillWriter(
          env.blockManager,
          FileBufferBytes,
          new ShuffleWriteMetrics,
          count
        )
      val file = writer.getFile
      context.addTaskCompletionListener[Unit](_ => file.delete())
      var bytes = 0L
      try {
        rows.foreach { row =>
          writer.write(row.getBaseObject, row.getBaseOffset, row.getSizeInBytes, 0L)
          bytes += row.getSizeInBytes
        }
      } finally writer.close()
      context.taskMetrics().incMemoryBytesSpilled(bytes)
      context.taskMetrics().incDiskBytesSpilled(file.length)
      val reader = writer.getReader(env.serializerManager)
      context.addTaskCompletionListener[Unit](_ => reader.close()) // if not read to its end
      val row = new UnsafeRow(numFields)
      val readBack = new Iterator[UnsafeRow] {
        def hasNext: Boolean = {
          val more = reader.hasNext
          if (!more) { reader.close(); file.delete() }
          more
        }
        def next(): UnsafeRow = {
          reader.loadNext()
          row.pointTo(reader.getBaseObject, reader.getBaseOffset, reader.getRecordLength)
          row
        }
      }
      (readBack, bytes)
    }
}
