package rangejoin.execution.blocks

import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.unsafe.Platform

/**
 * Unsafe rows stored back to back in one byte array: row `i` is `data[offsets(i), offsets(i+1))`
 * (the array may have unused room after the last row).
 *
 * Two objects per block instead of two per row keep the garbage collector out of the way, and
 * the form serializes as two arrays when Spark moves a cached block to disk.
 */
final class PackedRows(val numFields: Int, val data: Array[Byte], val offsets: Array[Int])
    extends Serializable {

  def size: Int = offsets.length - 1

  /** The bytes this object holds. */
  def sizeInBytes: Long = data.length + 4L * offsets.length

  /** Points `reuse` at row `i` and returns it; valid until `reuse` is pointed elsewhere. */
  def row(i: Int, reuse: UnsafeRow): UnsafeRow = {
    reuse.pointTo(data, Platform.BYTE_ARRAY_OFFSET + offsets(i), offsets(i + 1) - offsets(i))
    reuse
  }

  /**
   * Rows `indices(from)` to `indices(until - 1)`, in that order, packed anew into arrays of
   * exactly their size, which are allocated from `budget` first.
   */
  def select(indices: Array[Int], from: Int, until: Int, budget: HeapBudget): PackedRows = {
    var bytes = 0L
    var i = from
    while (i < until) { bytes += rowBytes(indices(i)); i += 1 }
    budget.allocate(bytes + 4L * (until - from + 1))
    val selected = new Array[Byte](bytes.toInt) // at most data.length
    val selectedOffsets = new Array[Int](until - from + 1)
    var end = 0
    i = from
    while (i < until) {
      val r = indices(i)
      PackedRows.copyRow(data, offsets(r), selected, end, rowBytes(r))
      end += rowBytes(r)
      selectedOffsets(i - from + 1) = end
      i += 1
    }
    new PackedRows(numFields, selected, selectedOffsets)
  }

  /**
   * All these rows in `order` (a permutation of `0 until size`), packed anew into arrays that
   * are allocated from `budget`.
   *
   * Rows of one size (no variable-length value, or all of one length) are gathered in one pass,
   * each row's place computed from its number: the reads do not wait on one another, so their
   * cache misses overlap. Many rows of different sizes go through a [[chunked]] copy first: a
   * gather must then read a row's offset before its bytes, one miss waiting on another, and
   * each of the two copies reads or writes memory nearly in sequence instead.
   */
  def permuted(order: Array[Int], budget: HeapBudget): PackedRows = {
    val bytes = oneRowSize
    if (bytes >= 0) gatherOneSize(order, bytes, budget)
    else if (size <= 4 * PackedRows.ChunkRows) select(order, 0, size, budget)
    else {
      val (regrouped, mapped) = chunked(order, budget)
      val rows = regrouped.select(mapped, 0, size, budget)
      budget.free(regrouped.sizeInBytes + 4L * mapped.length)
      rows
    }
  }

  /** The bytes of every row, when all rows have that size (and there is one), else -1. */
  private def oneRowSize: Int =
    if (size == 0) -1
    else {
      val bytes = rowBytes(0)
      var i = 1
      while (i < size && rowBytes(i) == bytes) i += 1
      if (i == size) bytes else -1
    }

  /** [[permuted]] for rows of `bytes` bytes each: row `r` starts `r * bytes` after the first. */
  private def gatherOneSize(order: Array[Int], bytes: Int, budget: HeapBudget): PackedRows = {
    val n = size
    budget.allocate(n.toLong * bytes + 4L * (n + 1))
    val gathered = new Array[Byte](n * bytes) // the bytes these rows hold: at most data.length
    val starts = new Array[Int](n + 1)
    val first = offsets(0)
    var k = 0
    while (k < n) {
      PackedRows.copyRow(data, first + order(k) * bytes, gathered, k * bytes, bytes)
      starts(k + 1) = (k + 1) * bytes
      k += 1
    }
    new PackedRows(numFields, gathered, starts)
  }

  /**
   * These rows regrouped so that reading them in `order` stays local: returns a copy in which
   * the rows of each chunk of consecutive positions of `order` are together, and `order` mapped
   * onto the copy. Reading rows in a random order from a large array misses the cache on almost
   * every row; this copy is written through one stream per chunk (at most `MaxChunks`,
   * [[bucketed]]), and a chunk (`ChunkRows` rows or more) is small enough to read in any order
   * from the cache. The copy and the mapped order are allocated from `budget`, and so are, while
   * the copy is made, two more index arrays of `size` each.
   */
  def chunked(order: Array[Int], budget: HeapBudget): (PackedRows, Array[Int]) = {
    val n = size
    val chunkRows = math.max(PackedRows.ChunkRows, n / PackedRows.MaxChunks)
    val chunks = (n + chunkRows - 1) / chunkRows
    budget.allocate(12L * n)
    val position = new Array[Int](n) // row -> its position in `order`
    var k = 0
    while (k < n) { position(order(k)) = k; k += 1 }
    val chunkOf = new Array[Int](n)
    var i = 0
    while (i < n) { chunkOf(i) = position(i) / chunkRows; i += 1 }
    val moved = new Array[Int](n)
    val copy = bucketed(chunkOf, chunks, moved, budget)
    val mapped = chunkOf // no longer read: reused for `order` mapped onto the copy
    i = 0
    while (i < n) { mapped(position(i)) = moved(i); i += 1 }
    budget.free(8L * n) // `position` and `moved`
    (copy, mapped)
  }

  /**
   * These rows regrouped by bucket: returns a copy that holds the rows of bucket 0, then those
   * of bucket 1, and so on, each bucket's rows in their order here. One pass reads these rows in
   * sequence and writes the copy through one stream per bucket; the copy is allocated from
   * `budget`.
   *
   * @param buckets each row's bucket, from 0 until `numBuckets`
   * @param moved set to each row's position in the copy (at least as long as these rows); it
   *   may be `buckets` itself, since a row's bucket is read before its position is written
   */
  def bucketed(buckets: Array[Int], numBuckets: Int, moved: Array[Int], budget: HeapBudget)
      : PackedRows = {
    val n = size
    // Each bucket's first row, then its first byte, in the copy.
    val nextRow = BucketOrder.firsts(buckets, n, numBuckets)
    val nextByte = new Array[Int](numBuckets)
    var i = 0
    while (i < n) { nextByte(buckets(i)) += rowBytes(i); i += 1 }
    val bytes = BucketOrder.countsToStarts(nextByte)
    budget.allocate(bytes + 4L * (n + 1))
    val data = new Array[Byte](bytes)
    val starts = new Array[Int](n + 1)
    i = 0
    while (i < n) {
      val b = buckets(i)
      val row = nextRow(b)
      PackedRows.copyRow(this.data, offsets(i), data, nextByte(b), rowBytes(i))
      starts(row) = nextByte(b)
      moved(i) = row
      nextByte(b) += rowBytes(i)
      nextRow(b) = row + 1
      i += 1
    }
    starts(n) = bytes
    new PackedRows(numFields, data, starts)
  }

  private def rowBytes(i: Int): Int = offsets(i + 1) - offsets(i)
}

object PackedRows {

  /** The largest byte array the JVM reliably allocates. */
  val MaxBytes: Long = Int.MaxValue - 15L

  /** Rows per chunk of a [[PackedRows#chunked]] copy, at least. */
  private val ChunkRows = 2048

  /** At most this many chunks, so that the copy is written through few streams. */
  private val MaxChunks = 1024

  /**
   * Copies one row's `bytes` bytes (a multiple of 8, as every unsafe row's size is). Short rows
   * are copied a word at a time: `System.arraycopy`'s call costs more than moving a few words.
   */
  @inline private def copyRow(
      from: Array[Byte],
      fromOffset: Int,
      to: Array[Byte],
      toOffset: Int,
      bytes: Int
  )
      : Unit =
    if (bytes > 64) System.arraycopy(from, fromOffset, to, toOffset, bytes)
    else {
      val source = Platform.BYTE_ARRAY_OFFSET + fromOffset
      val target = Platform.BYTE_ARRAY_OFFSET + toOffset
      var i = 0
      while (i < bytes) {
        Platform.putLong(to, target + i, Platform.getLong(from, source + i))
        i += 8
      }
    }

  def empty(numFields: Int): PackedRows = new PackedRows(numFields, Array.emptyByteArray, Array(0))

  /**
   * Appends copies of unsafe rows. Its arrays start with room for `initialRows` rows of
   * `initialBytes` bytes and double as rows arrive; each array is allocated from `budget` before
   * it is made, and freed once it is replaced by a larger copy or by [[result]].
   */
  final class Builder(
      numFields: Int,
      budget: HeapBudget,
      initialRows: Int = InitialRows,
      initialBytes: Int = InitialBytes
  ) {
    budget.allocate(initialBytes + 4L * (initialRows + 1))
    private var data = new Array[Byte](initialBytes)
    private var offsets = new Array[Int](initialRows + 1)
    private var count = 0
    private var end = 0

    def size: Int = count

    /** The bytes of the rows appended. */
    def bytes: Int = end

    /** Points `reuse` at appended row `i` and returns it; valid until the next append. */
    def row(i: Int, reuse: UnsafeRow): UnsafeRow = {
      reuse.pointTo(data, Platform.BYTE_ARRAY_OFFSET + offsets(i), offsets(i + 1) - offsets(i))
      reuse
    }

    def +=(row: UnsafeRow): Unit = {
      val size = row.getSizeInBytes
      makeRoom(size, 1)
      Platform.copyMemory(
        row.getBaseObject,
        row.getBaseOffset,
        data,
        Platform.BYTE_ARRAY_OFFSET + end,
        size
      )
      end += size
      count += 1
      offsets(count) = end
    }

    /**
     * Appends `rows` rows of `rowBytes` bytes each, which `write` writes, given the array and the
     * address of the first one's bytes (zeros until written), once there is room for all of them.
     */
    def appendFixedWidth(rows: Int, rowBytes: Int)(write: (Array[Byte], Long) => Unit): Unit = {
      makeRoom(rows.toLong * rowBytes, rows)
      write(data, Platform.BYTE_ARRAY_OFFSET + end)
      var i = 0
      while (i < rows) {
        end += rowBytes
        count += 1
        offsets(count) = end
        i += 1
      }
    }

    /** Grows the arrays, if needed, to hold `rows` more rows of `bytes` bytes in all. */
    private def makeRoom(bytes: Long, rows: Int): Unit = {
      if (end + bytes > data.length) {
        val needed = end + bytes
        if (needed > PackedRows.MaxBytes) {
          throw new IllegalStateException(
            s"A partition of a range join holds more than ${PackedRows.MaxBytes} bytes of rows. " +
              "For a side that was range-partitioned, raise spark.sql.shuffle.partitions; for " +
              "one coalesced (not shuffled), lower spark.rangejoin.rangePartitionMinRows or " +
              "spark.rangejoin.coalesce.maxMemoryFraction."
          )
        }
        val grown = math.min(math.max(data.length * 2L, needed), PackedRows.MaxBytes).toInt
        data = budget.replace(data.length, grown)(java.util.Arrays.copyOf(data, grown))
      }
      if (count + 1 + rows > offsets.length) {
        val grown = math.max(offsets.length * 2L, count + 1L + rows).min(Int.MaxValue).toInt
        offsets = budget.replace(4L * offsets.length, 4L * grown) {
          java.util.Arrays.copyOf(offsets, grown)
        }
      }
    }

    /**
     * The rows appended; the builder is not usable after. The byte array is cut to their size
     * unless it is nearly full (an eighth or less unused: a builder sized for its rows up front
     * keeps its array instead of copying it), or unless not `trim`med (for rows that are about to
     * be copied anyway).
     */
    def result(trim: Boolean = true): PackedRows = {
      val keptBytes =
        if (trim && data.length - end > data.length / 8) end else data.length
      val rows = budget.replace(data.length + 4L * offsets.length, keptBytes + 4L * (count + 1)) {
        new PackedRows(
          numFields,
          if (keptBytes == data.length) data else java.util.Arrays.copyOf(data, end),
          if (offsets.length == count + 1) offsets else java.util.Arrays.copyOf(offsets, count + 1)
        )
      }
      data = null
      offsets = null
      rows
    }
  }

  /** The room a [[Builder]] starts with unless told otherwise: rows, and bytes of rows. */
  val InitialRows: Int = 1 << 8
  val InitialBytes: Int = 1 << 12
}
