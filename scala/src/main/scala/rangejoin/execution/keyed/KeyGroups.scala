package rangejoin.execution.keyed

import scala.collection.BufferedIterator

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.types.DataType

/**
 * The rows of one equality-key value on each side of a join: `stream` and `build` hold the rows
 * of each side with that key, either possibly empty. Both views read their input's rows as they
 * come; a row they return stays valid only until the view is read again, so keep a `copy()`.
 */
final class KeyGroup(
    val stream: BufferedIterator[InternalRow],
    val build: BufferedIterator[InternalRow]
)

/**
 * Co-groups two inputs sorted by their equality keys (ascending, NULLs first, as Spark's
 * `SortOrder(key, Ascending)` sorts) into [[KeyGroup]]s, in key order, without buffering.
 *
 * A key with a NULL component equals nothing (SQL `=`), so rows whose key has a NULL form groups
 * of their own with the other side empty; consecutive such rows share one group. Every row of
 * both inputs lands in exactly one group. Rows a consumer leaves unread in a group are skipped
 * when the next group is requested.
 *
 * @param streamKey projects a stream row to its keys; `buildKey` likewise for the build side
 * @param ordering the natural ascending ordering of the key rows
 */
final class KeyGroups(
    stream: Iterator[InternalRow],
    build: Iterator[InternalRow],
    streamKey: Projection,
    buildKey: Projection,
    ordering: Ordering[InternalRow]
) extends Iterator[KeyGroup] {
  private val streamRows = new KeyCursor(stream, streamKey)
  private val buildRows = new KeyCursor(build, buildKey)
  private var current: KeyGroup = new KeyGroup(Iterator.empty.buffered, Iterator.empty.buffered)

  def hasNext: Boolean = {
    skipRest()
    streamRows.row != null || buildRows.row != null
  }

  def next(): KeyGroup = {
    if (!hasNext) throw new NoSuchElementException
    val s = streamRows.key
    val b = buildRows.key
    current =
      if (s != null && s.anyNull) new KeyGroup(streamRows.nullKeyRun, empty)
      else if (b != null && b.anyNull) new KeyGroup(empty, buildRows.nullKeyRun)
      else if (s == null) new KeyGroup(empty, buildRows.run(b.copy()))
      else if (b == null) new KeyGroup(streamRows.run(s.copy()), empty)
      else {
        val cmp = ordering.compare(s, b)
        val key = if (cmp <= 0) s.copy() else b.copy()
        new KeyGroup(
          if (cmp <= 0) streamRows.run(key) else empty,
          if (cmp >= 0) buildRows.run(key) else empty
        )
      }
    current
  }

  private def empty = Iterator.empty.buffered

  private def skipRest(): Unit = {
    while (current.stream.hasNext) current.stream.next()
    while (current.build.hasNext) current.build.next()
  }

  /**
   * The current row of an input and its key, read lazily: after `consume()` the next row is
   * fetched only when asked for, so the consumed row stays valid until then.
   */
  private final class KeyCursor(rows: Iterator[InternalRow], keyOf: Projection) {
    private var currentRow: InternalRow = _
    private var currentKey: UnsafeRow = _
    private var fetched = false

    /** The current row, or null after the last. */
    def row: InternalRow = { fetch(); currentRow }

    /** The current row's key, or null after the last. */
    def key: UnsafeRow = { fetch(); currentKey }

    def consume(): Unit = { fetch(); fetched = false }

    private def fetch(): Unit = if (!fetched) {
      fetched = true
      if (rows.hasNext) {
        currentRow = rows.next()
        currentKey = keyOf(currentRow).asInstanceOf[UnsafeRow]
      } else {
        currentRow = null
        currentKey = null
      }
    }

    /** The rows from the current one while their key equals `groupKey`. */
    def run(groupKey: UnsafeRow): BufferedIterator[InternalRow] =
      view(k => !k.anyNull && ordering.equiv(k, groupKey))

    /** The rows from the current one while their key has a NULL. */
    def nullKeyRun: BufferedIterator[InternalRow] = view(_.anyNull)

    private def view(belongs: UnsafeRow => Boolean): BufferedIterator[InternalRow] =
      new BufferedIterator[InternalRow] {
        def hasNext: Boolean = row != null && belongs(key)
        def head: InternalRow = if (hasNext) row else throw new NoSuchElementException
        def next(): InternalRow = { val r = head; consume(); r }
      }
  }
}

object KeyGroups {

  /** Co-groups `stream` and `build` on their bound equality keys, of types `types`. */
  def apply(
      stream: Iterator[InternalRow],
      build: Iterator[InternalRow],
      streamKeys: Seq[Expression],
      buildKeys: Seq[Expression],
      types: Seq[DataType]
  ): KeyGroups = new KeyGroups(
    stream,
    build,
    UnsafeProjection.create(streamKeys),
    UnsafeProjection.create(buildKeys),
    RowOrdering.createNaturalAscendingOrdering(types)
  )
}
