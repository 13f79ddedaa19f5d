package rangejoin.execution.keyed

import scala.util.Random

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{
  And,
  AttributeReference,
  BasePredicate,
  BoundReference,
  EqualTo,
  Expression,
  GreaterThan,
  GreaterThanOrEqual,
  LessThan,
  LessThanOrEqual,
  Literal,
  Not,
  Subtract
}
import org.apache.spark.sql.execution.metric.SQLMetric
import org.apache.spark.sql.types.{DataType, LongType}
import org.scalatest.funsuite.AnyFunSuite

import rangejoin.condition.{AsOfCondition, AsOfDirection}
import rangejoin.execution.blocks.HeapBudget

/**
 * Where the as-of values alone decide the as-of condition (the direction's comparison and
 * nothing else), AsOfSearch finds each left value's nearest right value by codes, evaluating no
 * condition on any row, with the answer a search by definition gives; a window or a cast keeps
 * the condition's evaluation.
 */
class AsOfSearchSuite extends AnyFunSuite {
  import AsOfDirection._

  private val l = AttributeReference("l", LongType)()
  private val r = AttributeReference("r", LongType)()

  test("only the direction's comparison of the two as-of values is decided by values") {
    def excludes(condition: Expression, d: AsOfDirection) =
      AsOfCondition.excludesEqualValues(condition, l, r, d)
    val window = GreaterThanOrEqual(r, Subtract(l, Literal(5L)))
    assert(excludes(GreaterThanOrEqual(l, r), Backward).contains(false))
    assert(excludes(GreaterThan(l, r), Backward).contains(true))
    assert(excludes(LessThanOrEqual(l, r), Forward).contains(false))
    assert(excludes(LessThan(l, r), Forward).contains(true))
    assert(excludes(Not(EqualTo(l, r)), Nearest).contains(true))
    assert(excludes(Literal(true), Nearest).contains(false))
    assert(excludes(And(GreaterThanOrEqual(l, r), Literal(true)), Backward).contains(false))
    assert(excludes(And(GreaterThanOrEqual(l, r), window), Backward).isEmpty)
    assert(excludes(GreaterThanOrEqual(r, l), Backward).isEmpty)
    assert(excludes(Literal(true), Backward).isEmpty)
    assert(excludes(GreaterThanOrEqual(l, r), Forward).isEmpty)
  }

  // Right rows (k, v), one key group, grouped and coded by v.
  private val types: Seq[DataType] = Seq(LongType, LongType)

  /** A condition the search must never evaluate. */
  private object Unevaluated extends BasePredicate {
    def eval(row: InternalRow): Boolean = throw new AssertionError("the condition was evaluated")
    override def initialize(partitionIndex: Int): Unit = ()
  }

  test("a search by values gives the nearest value by definition, evaluating no condition") {
    val random = new Random(3)
    // Many ties: 300 values drawn from 0 to 199.
    val values = Seq.fill(300)(random.nextInt(200).toLong)
    val index = AsOfIndex.build(
      values.iterator.map(v => InternalRow(0L, v)),
      Seq(BoundReference(0, LongType, nullable = false)),
      new AsOfValue(BoundReference(1, LongType, nullable = false)),
      types,
      HeapBudget.Unaccounted
    )
    val group = index.groupOfValue(0L)
    for (
      (direction, excludesEqual) <- Seq(
        Backward -> false,
        Backward -> true,
        Forward -> false,
        Forward -> true,
        Nearest -> false,
        Nearest -> true
      )
    ) {
      val search = new AsOfSearch(
        direction,
        Unevaluated,
        None,
        Literal(0L),
        Some(excludesEqual),
        None,
        AsOfCondition.codeRange(LongType),
        types.size,
        new SQLMetric("sum")
      )
      for (left <- -2L to 202L) {
        val qualifying = values.filter { v =>
          val side = direction match {
            case Backward => v <= left
            case Forward => v >= left
            case Nearest => true
          }
          side && !(excludesEqual && v == left)
        }
        val found = search.nearest(InternalRow.empty, left, index, group)
        if (qualifying.isEmpty) assert(found == -1, s"$direction $excludesEqual $left")
        else {
          val best = qualifying.map(v => math.abs(v - left)).min
          assert(found >= 0, s"$direction $excludesEqual $left")
          assert(math.abs(index.codes(found) - left) == best, s"$direction $excludesEqual $left")
          assert(qualifying.contains(index.codes(found)), s"$direction $excludesEqual $left")
        }
      }
    }
  }
}
