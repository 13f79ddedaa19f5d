package rangejoin.condition

import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.types._

import rangejoin.shims.{ArithmeticModes, TimestampPlusInterval}

/**
 * A bounded window on one column pair: `lower` bounds the right column from below and `upper`
 * bounds it from above, both relative to the left column. For example
 * `l.ts >= r.ts AND l.ts < r.ts + INTERVAL 1 DAY` has lower `l.ts < r.ts + INTERVAL 1 DAY` and
 * upper `l.ts >= r.ts`, on columns `l.ts` and `r.ts`.
 *
 * Invariant the sliding scan relies on: each side of each bound is its column plus a constant,
 * added without wrap-around (see [[SlidingWindow.column]]), so it is a non-decreasing function of
 * the column in Spark's ordering. Hence, with both sides sorted by their column, the right rows
 * that satisfy both bounds for a left row form a contiguous run, and that run only moves
 * forward as the left column grows.
 */
final case class SlidingWindow(
    leftColumn: Expression,
    rightColumn: Expression,
    lower: Inequality,
    upper: Inequality
)

object SlidingWindow {

  /**
   * The first pair of `inequalities` that forms a window, with the other inequalities; None when
   * no pair does.
   */
  def find(inequalities: Seq[Inequality]): Option[(SlidingWindow, Seq[Inequality])] = {
    val pairs = for {
      i <- inequalities.indices
      j <- inequalities.indices if i < j
      window <- of(inequalities(i), inequalities(j))
    } yield (window, inequalities.indices.filterNot(k => k == i || k == j).map(inequalities))
    pairs.headOption
  }

  private def of(a: Inequality, b: Inequality): Option[SlidingWindow] =
    for {
      la <- column(a.left)
      lb <- column(b.left)
      ra <- column(a.right)
      rb <- column(b.right)
      if la.semanticEquals(lb) && ra.semanticEquals(rb) && a.op.leftSmaller != b.op.leftSmaller
    } yield {
      // `l < r + c` bounds the right column from below; `l > r + c` from above.
      val (lower, upper) = if (a.op.leftSmaller) (a, b) else (b, a)
      SlidingWindow(la, ra, lower, upper)
    }

  /**
   * The column `e` is a constant offset of: `e` itself, or `column + c`, `column - c`,
   * `c + column`, a date plus days, a date or timestamp plus an interval, with `c` foldable, or a
   * monotone [[CandidateKey]] of the column.
   * Integral and decimal additions qualify only in ANSI mode, where overflow fails instead of
   * wrapping around; floating-point offsets only when finite, since `-Infinity + Infinity` is NaN.
   * The column must be deterministic and of a type the operators sort (see
   * [[JoinConditionAnalysis.isSortableKeyType]]).
   */
  def column(e: Expression): Option[Expression] = {
    val base = e match {
      case a @ Add(x, c, _) if c.foldable && safeOffset(a, c) => column(x)
      case a @ Add(c, x, _) if c.foldable && safeOffset(a, c) => column(x)
      case s @ Subtract(x, c, _) if c.foldable && safeOffset(s, c) => column(x)
      case TimestampPlusInterval(x, c) if c.foldable => column(x)
      case TimestampAddYMInterval(x, c, _) if c.foldable => column(x)
      case DateAdd(x, c) if c.foldable => column(x)
      case DateAddYMInterval(x, c) if c.foldable => column(x)
      case Cast(x, dt, _, _) if x.dataType == dt => column(x)
      case k: CandidateKey if k.monotone => column(k.child)
      case other => Some(other)
    }
    base.filter(b =>
      b.deterministic && b.references.nonEmpty &&
        JoinConditionAnalysis.isSortableKeyType(b.dataType)
    )
  }

  private def safeOffset(arithmetic: BinaryArithmetic, c: Expression): Boolean =
    arithmetic.dataType match {
      case FloatType | DoubleType =>
        c.eval() match {
          case d: Double => !d.isInfinite
          case f: Float => !f.isInfinite
          case _ => true // NULL: the bound never holds
        }
      case ByteType | ShortType | IntegerType | LongType | _: DecimalType =>
        ArithmeticModes.failsOnOverflow(arithmetic)
      case _ => false
    }
}
