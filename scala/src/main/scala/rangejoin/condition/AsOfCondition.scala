package rangejoin.condition

import org.apache.spark.sql.catalyst.expressions.{
  And,
  AttributeSet,
  BinaryComparison,
  Cast,
  EqualTo,
  Expression,
  GreaterThan,
  GreaterThanOrEqual,
  If,
  LessThan,
  LessThanOrEqual,
  Literal,
  Not,
  PredicateHelper,
  Subtract,
  SubtractDates,
  SubtractTimestamps
}
import org.apache.spark.sql.catalyst.util.DateTimeConstants
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.CalendarInterval

import rangejoin.shims.StringOrders

/** Which right rows an as-of join considers for a left row, and which of them is nearest. */
sealed abstract class AsOfDirection(val description: String) extends Serializable

object AsOfDirection {

  /** The right row with the greatest as-of value at or before the left row's. */
  case object Backward extends AsOfDirection("backward")

  /** The right row with the least as-of value at or after the left row's. */
  case object Forward extends AsOfDirection("forward")

  /** The right row whose as-of value is closest to the left row's, on either side. */
  case object Nearest extends AsOfDirection("nearest")
}

/**
 * An as-of join as Spark's `AsOfJoin` states it, taken apart for a nearest-match search.
 *
 * Spark gives the join as an `asOfCondition` (the direction's comparison of `leftAsOf` with
 * `rightAsOf`, and the tolerance window), a `condition` (the `on` columns) and an
 * `orderExpression` (the distance, in the direction). Its answer for a left row is the right row
 * that satisfies `condition AND asOfCondition` with the least distance (`min_by`); none if no
 * right row does. This form keeps Spark's own expressions, which the operator evaluates on every
 * candidate it looks at, and adds what the search needs:
 *
 *  - `leftKeys = rightKeys`: the equalities of `condition` between a left and a right
 *    expression whose values are equal exactly when their bytes are (no floating point);
 *  - `residual`: the rest of `condition`, checked on each candidate;
 *  - `tolerance`: the tolerance in the units of the as-of values' codes (days for dates,
 *    microseconds for timestamps), rounded up; used only to rule out overflow.
 *
 * What makes the search exact is the shape [[AsOfCondition.of]] checks: every conjunct of
 * `asOfCondition` is `true`, the direction's comparison of `leftAsOf` with `rightAsOf`
 * (`l >= r`/`l > r` backward, `l <= r`/`l < r` forward, `NOT(l = r)` nearest), or a comparison
 * of `rightAsOf` (or a widening cast of it) with an expression of the left row alone, facing
 * away from the left row (`r >= x`/`r > x` backward, `r <= x`/`r < x` forward, either for
 * nearest). Since Spark asserts the tolerance is not negative, each window comparison holds at
 * `r = l` and, once false moving away from `l`, stays false: walking the right rows of a key in
 * order of distance, the first one for which `asOfCondition` fails at `r <> l` ends the walk
 * on that side. That holds where no arithmetic wraps or overflows, which the operator checks
 * per left row ([[AsOfCondition.codeRange]]).
 */
final case class AsOfCondition(
    leftAsOf: Expression,
    rightAsOf: Expression,
    direction: AsOfDirection,
    leftKeys: Seq[Expression],
    rightKeys: Seq[Expression],
    residual: Option[Expression],
    asOfCondition: Expression,
    orderExpression: Expression,
    tolerance: Option[Long]
)

object AsOfCondition extends PredicateHelper {

  /**
   * The as-of join of `left` and `right` taken apart, or why it cannot be: each argument is the
   * field of Spark's `AsOfJoin` of the same name.
   */
  def of(
      left: AttributeSet,
      right: AttributeSet,
      asOfCondition: Expression,
      condition: Option[Expression],
      orderExpression: Expression,
      toleranceAssertion: Option[Expression]
  ): Either[String, AsOfCondition] = {
    def fromLeft(e: Expression) = e.references.nonEmpty && e.references.subsetOf(left)
    def fromRight(e: Expression) = e.references.nonEmpty && e.references.subsetOf(right)
    for {
      found <- distance(orderExpression, fromLeft, fromRight)
      (l, r, direction) = found
      _ <- Either.cond(
        codeRange.isDefinedAt(l.dataType) && l.dataType == r.dataType,
        (),
        s"the as-of columns are ${l.dataType.simpleString}; the search takes integers, dates " +
          "and timestamps"
      )
      _ <- Either.cond(
        splitConjunctivePredicates(asOfCondition).forall(shaped(_, l, r, direction, fromLeft)),
        (),
        s"the as-of condition ${asOfCondition.sql} is not of the form Spark's joinAsOf builds"
      )
      tolerance <- toleranceCode(toleranceAssertion, l.dataType)
    } yield {
      val conjuncts = condition.toSeq.flatMap(splitConjunctivePredicates)
      val keys = conjuncts.collect(Function.unlift(equiKey(_, fromLeft, fromRight)))
      val rest = conjuncts.filter(c => equiKey(c, fromLeft, fromRight).isEmpty)
      AsOfCondition(
        l,
        r,
        direction,
        keys.map(_._1),
        keys.map(_._2),
        rest.reduceOption(And),
        asOfCondition,
        orderExpression,
        tolerance
      )
    }
  }

  /**
   * The smallest and largest value, in codes, that a difference or sum of two as-of values of a
   * type may take without wrapping (integers with ANSI mode off) or overflowing (the day-time
   * intervals that dates and timestamps subtract into): a w-bit integer's range; for dates, the
   * days whose microseconds fit a long; for timestamps, a long.
   */
  val codeRange: PartialFunction[DataType, (Long, Long)] = {
    case ByteType => (Byte.MinValue.toLong, Byte.MaxValue.toLong)
    case ShortType => (Short.MinValue.toLong, Short.MaxValue.toLong)
    case IntegerType => (Int.MinValue.toLong, Int.MaxValue.toLong)
    case LongType | TimestampType | TimestampNTZType => (Long.MinValue, Long.MaxValue)
    case DateType =>
      val days = Long.MaxValue / DateTimeConstants.MICROS_PER_DAY
      (-days, days)
  }

  /** `(leftAsOf, rightAsOf, direction)` from the distance Spark orders the candidates by. */
  private def distance(
      order: Expression,
      fromLeft: Expression => Boolean,
      fromRight: Expression => Boolean
  ): Either[String, (Expression, Expression, AsOfDirection)] = order match {
    case If(GreaterThan(a, b), Difference(a1, b1), Difference(b2, a2))
        if fromLeft(a) && fromRight(b) && Seq(a1, a2).forall(_.semanticEquals(a)) &&
          Seq(b1, b2).forall(_.semanticEquals(b)) =>
      Right((a, b, AsOfDirection.Nearest))
    case Difference(a, b) if fromLeft(a) && fromRight(b) => Right((a, b, AsOfDirection.Backward))
    case Difference(b, a) if fromLeft(a) && fromRight(b) => Right((a, b, AsOfDirection.Forward))
    case _ =>
      Left(s"the as-of distance ${order.sql} is not a difference of a left and a right column")
  }

  /** A subtraction as Spark resolves it for integers, dates and timestamps. */
  private object Difference {
    def unapply(e: Expression): Option[(Expression, Expression)] = e match {
      case s: Subtract => Some((s.left, s.right))
      case s: SubtractDates => Some((s.left, s.right))
      case s: SubtractTimestamps => Some((s.left, s.right))
      case _ => None
    }
  }

  /** Whether `c` is one of the conjuncts the class Scaladoc lists for `direction`. */
  private def shaped(
      c: Expression,
      l: Expression,
      r: Expression,
      direction: AsOfDirection,
      fromLeft: Expression => Boolean
  ): Boolean = {
    import AsOfDirection._
    def isL(e: Expression) = e.semanticEquals(l)
    def isR(e: Expression) = e.semanticEquals(r) || (e match {
      case cast: Cast => cast.child.semanticEquals(r) && Cast.canUpCast(r.dataType, cast.dataType)
      case _ => false
    })
    def bound(x: Expression) = x.deterministic && fromLeft(x)
    (c, direction) match {
      case (Literal(true, BooleanType), _) => true
      case (GreaterThanOrEqual(a, b), Backward) if isL(a) && isR(b) => true
      case (GreaterThan(a, b), Backward) if isL(a) && isR(b) => true
      case (LessThanOrEqual(a, b), Forward) if isL(a) && isR(b) => true
      case (LessThan(a, b), Forward) if isL(a) && isR(b) => true
      case (Not(EqualTo(a, b)), Nearest) => isL(a) && isR(b)
      case (GreaterThanOrEqual(a, x), Backward | Nearest) => isR(a) && bound(x)
      case (GreaterThan(a, x), Backward | Nearest) => isR(a) && bound(x)
      case (LessThanOrEqual(a, x), Forward | Nearest) => isR(a) && bound(x)
      case (LessThan(a, x), Forward | Nearest) => isR(a) && bound(x)
      case _ => false
    }
  }

  /**
   * Whether `asOfCondition` excludes a right row whose as-of value equals the left row's, when
   * the as-of values alone decide it on the side of the left row's value that the search walks:
   * its conjuncts are `true` and at most the direction's comparison of the left as-of value `l`
   * with the right one `r` themselves (no window, no cast). The search then compares the
   * values' codes, which are the values, instead of evaluating the condition on a joined row.
   * `None` when a conjunct reads anything else, such as a tolerance's window.
   */
  def excludesEqualValues(
      asOfCondition: Expression,
      l: Expression,
      r: Expression,
      direction: AsOfDirection
  ): Option[Boolean] = {
    import AsOfDirection._
    def compares(a: Expression, b: Expression) = a.semanticEquals(l) && b.semanticEquals(r)
    val conjuncts = splitConjunctivePredicates(asOfCondition).filter {
      case Literal(true, BooleanType) => false
      case _ => true
    }
    (conjuncts, direction) match {
      case (Seq(GreaterThanOrEqual(a, b)), Backward) if compares(a, b) => Some(false)
      case (Seq(GreaterThan(a, b)), Backward) if compares(a, b) => Some(true)
      case (Seq(LessThanOrEqual(a, b)), Forward) if compares(a, b) => Some(false)
      case (Seq(LessThan(a, b)), Forward) if compares(a, b) => Some(true)
      case (Seq(Not(EqualTo(a, b))), Nearest) if compares(a, b) => Some(true)
      case (Seq(), Nearest) => Some(false)
      case _ => None
    }
  }

  /** The tolerance in codes of `asOfType`, rounded up; `None` without one. */
  private def toleranceCode(
      assertion: Option[Expression],
      asOfType: DataType
  ): Either[String, Option[Long]] = assertion match {
    case None => Right(None)
    case Some(c: BinaryComparison) if c.left.foldable =>
      def inCodes(micros: Long) =
        if (asOfType == DateType) -Math.floorDiv(-micros, DateTimeConstants.MICROS_PER_DAY)
        else micros
      val code = (c.left.eval(), c.left.dataType) match {
        case (n: Number, ByteType | ShortType | IntegerType | LongType) => Some(n.longValue)
        case (n: Number, _: DayTimeIntervalType) => Some(inCodes(n.longValue))
        case (i: CalendarInterval, _) if i.months == 0 =>
          val micros = BigInt(i.days) * DateTimeConstants.MICROS_PER_DAY + i.microseconds
          Some(micros).filter(_.isValidLong).map(m => inCodes(m.toLong))
        case _ => None
      }
      code.map(
        Some(_)
      ).toRight(s"the tolerance ${c.left.sql} is not a number or a day-time interval")
    case Some(other) => Left(s"the tolerance check ${other.sql} is not understood")
  }

  /** `condition`'s conjunct `c` as a pair of equal keys, left then right. */
  private def equiKey(
      c: Expression,
      fromLeft: Expression => Boolean,
      fromRight: Expression => Boolean
  ): Option[(Expression, Expression)] = {
    val pair = c match {
      case EqualTo(a, b) if fromLeft(a) && fromRight(b) => Some((a, b))
      case EqualTo(b, a) if fromLeft(a) && fromRight(b) => Some((a, b))
      case _ => None
    }
    pair.filter { case (a, b) =>
      a.deterministic && b.deterministic && bytesDecideEquality(a.dataType)
    }
  }

  /**
   * Whether two values of `dataType` are equal exactly when their unsafe-row bytes are: not for
   * floating point (-0.0 equals 0.0, NaN equals NaN), nor for strings under a collation other
   * than binary. Keys of other types stay in the residual.
   */
  private def bytesDecideEquality(dataType: DataType): Boolean = {
    def floating(t: DataType): Boolean = t match {
      case FloatType | DoubleType => true
      case s: StructType => s.fields.exists(f => floating(f.dataType))
      case a: ArrayType => floating(a.elementType)
      case m: MapType => floating(m.keyType) || floating(m.valueType)
      case _ => false
    }
    StringOrders.bytesDecideEquality(dataType) && !floating(dataType)
  }
}
