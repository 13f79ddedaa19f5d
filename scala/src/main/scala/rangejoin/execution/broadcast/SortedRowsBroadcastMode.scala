package rangejoin.execution.broadcast

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{
  Attribute,
  BindReferences,
  Expression,
  If,
  IsNull,
  Literal,
  Murmur3Hash,
  Or,
  XxHash64
}
import org.apache.spark.sql.catalyst.plans.physical.BroadcastMode
import org.apache.spark.sql.types.{ByteType, DateType, IntegerType, ShortType}

/**
 * How Spark's broadcast exchange builds a broadcast range join's relation from the collected
 * build rows (unsafe rows, as the exchange collects them): sorted and packed once, on the
 * driver, into one carrier row ([[SortedBuildRows]]), so that neither the broadcast nor the tasks
 * handle the rows one object at a time.
 *
 * @param numFields the build input's column count
 * @param keys the build input's sides of the indexed inequalities (or, for a keyed interval
 *   join or an as-of join, a hash of its keys and the value each key's rows are ordered on),
 *   bound to its columns
 * @param thenBySecond whether rows with equal first keys are sorted on the second
 * @param rowsOnly whether the carrier holds the rows alone, without the keys' codes (for readers
 *   that need only the rows' order)
 */
final case class SortedRowsBroadcastMode(
    numFields: Int,
    keys: Seq[Expression],
    thenBySecond: Boolean = false,
    rowsOnly: Boolean = false
) extends BroadcastMode {

  override def transform(rows: Array[InternalRow]): Array[InternalRow] =
    transform(rows.iterator, Some(rows.length.toLong))

  override def transform(
      rows: Iterator[InternalRow],
      sizeHint: Option[Long]
  ): Array[InternalRow] = {
    val expectedRows = sizeHint.fold(0)(_.toInt)
    val packed = SortedBuildRows.pack(rows, numFields, keys, expectedRows, thenBySecond)
    Array(packed.toCarrier(withCodes = !rowsOnly))
  }

  override def canonicalized: BroadcastMode = copy(keys = keys.map(_.canonicalized))

  // As the broadcast exchange's EXPLAIN line shows it.
  override def toString: String =
    s"SortedRowsBroadcastMode(sorted on ${keys.mkString(if (thenBySecond) ", then " else ", ")})"
}

object SortedRowsBroadcastMode {

  /** The mode that sorts rows of `input` on `keys`, expressions over its attributes. */
  def of(keys: Seq[Expression], input: Seq[Attribute], thenBySecond: Boolean = false)
      : SortedRowsBroadcastMode =
    SortedRowsBroadcastMode(
      input.size,
      keys.map(BindReferences.bindReference(_, input)),
      thenBySecond
    )

  /**
   * The mode that puts the rows of `input` with equal `keys` together, in ascending order of
   * `order` (equal values in the order they arrived): sorted on a hash of the keys, then on
   * `order`; on `order` alone without keys. An index that groups rows by key
   * (`rangejoin.execution.keyed.AsOfIndex`) reads rows that arrive in this order as they are,
   * and computes its own codes: the carrier holds the rows alone.
   * Rows with a NULL key or a NULL `order` are left out: an index by key leaves them out too, and
   * the joins that broadcast such an input never output its rows unmatched. `order` is not
   * evaluated on a row with a NULL key, as Spark's joins never evaluate it there: under ANSI, an
   * expression that fails only on such rows fails no query.
   *
   * Two keys with one hash whose rows interleave cost each executor a sort of the index, never an
   * answer, so the hash keeps distinct keys apart: Murmur3 is a bijection on one key of 32 bits or
   * fewer, and other keys take 64 bits of xxHash64.
   */
  def grouped(keys: Seq[Expression], order: Expression, input: Seq[Attribute])
      : SortedRowsBroadcastMode =
    (if (keys.isEmpty) of(Seq(order), input)
     else {
       val anyNull = keys.map(IsNull(_): Expression).reduce(Or)
       val orderOfKeyed = If(anyNull, Literal(null, order.dataType), order)
       of(Seq(keysHash(keys, anyNull), orderOfKeyed), input, thenBySecond = true)
     }).copy(rowsOnly = true)

  /** The hash of `keys`, NULL when one of them is (`anyNull`; a hash alone would be the seed). */
  private def keysHash(keys: Seq[Expression], anyNull: Expression): Expression = {
    val hash = keys.map(_.dataType) match {
      case Seq(ByteType | ShortType | IntegerType | DateType) => new Murmur3Hash(keys)
      case _ => new XxHash64(keys)
    }
    If(anyNull, Literal(null, hash.dataType), hash)
  }
}
