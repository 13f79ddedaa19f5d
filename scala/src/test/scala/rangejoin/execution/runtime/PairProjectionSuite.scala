package rangejoin.execution.runtime

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{
  AttributeReference,
  GenericInternalRow,
  JoinedRow,
  UnsafeProjection
}
import org.apache.spark.sql.types.{DoubleType, IntegerType, LongType, StringType}
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

/** PairProjection gives what a projection of the joined pair gives, reading one row if it can. */
class PairProjectionSuite extends AnyFunSuite {

  private val left = Seq(
    AttributeReference("l_id", LongType)(),
    AttributeReference("l_name", StringType)()
  )
  private val right = Seq(
    AttributeReference("r_v", IntegerType)(),
    AttributeReference("r_x", DoubleType)(),
    AttributeReference("r_s", StringType)()
  )

  private val lefts = Seq(
    new GenericInternalRow(Array[Any](1L, UTF8String.fromString("a"))),
    new GenericInternalRow(Array[Any](null, UTF8String.fromString("b"))),
    new GenericInternalRow(2) // NULL-padded
  )
  private val rights = Seq(
    new GenericInternalRow(Array[Any](7, -0.0, UTF8String.fromString("x"))),
    new GenericInternalRow(Array[Any](null, Double.NaN, null)),
    new GenericInternalRow(3) // NULL-padded
  )

  private def nullable(columns: Seq[AttributeReference]) = columns.map(_.withNullability(true))

  private val outputs = Seq(
    "the left input's columns" -> Seq(left(1), left(0)),
    "the right input's columns" -> Seq(right(2), right(0)),
    "one right column" -> Seq(right(1)),
    "columns of both" -> Seq(right(0), left(0), right(2)),
    "no column" -> Nil
  )

  for ((name, output) <- outputs) {
    test(s"$name: the projection of the joined pair") {
      val pairs = new PairProjection(output, nullable(left), nullable(right))
      val reference = UnsafeProjection.create(output, nullable(left) ++ nullable(right))
      val joined = new JoinedRow
      for (l <- lefts; r <- rights) {
        assert(pairs(l, r) === reference(joined(l, r)), s"$l with $r")
      }
    }
  }

  test("an output of one input's columns reads that input's row alone") {
    val onlyLeft = new PairProjection(Seq(left(0)), nullable(left), nullable(right))
    val onlyRight = new PairProjection(Seq(right(1)), nullable(left), nullable(right))
    val unread: InternalRow = null
    assert(onlyLeft(lefts.head, unread).getLong(0) === 1L)
    assert(onlyRight(unread, rights.head).getDouble(0) === -0.0)
    val both = new PairProjection(Seq(left(0), right(1)), nullable(left), nullable(right))
    intercept[NullPointerException](both(lefts.head, unread))
  }
}
