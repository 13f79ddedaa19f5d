package rangejoin.condition

import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.types._

import rangejoin.local.InequalityOp
import rangejoin.local.InequalityOp.{Ge, Gt, Le, Lt}

/**
 * Candidate inequalities from conjuncts that bound a difference of a left and a right
 * expression, the way tolerance and "within N days" joins are written:
 * `x - y op c`, `c op x - y`, `x - y BETWEEN c1 AND c2` (two such conjuncts once Spark has
 * rewritten it), `abs(x - y) < c` or `<= c`, and `datediff(x, y)` in place of `x - y`; `x` and
 * `y` each read one input (either way round), `c` is a constant, `op` is `< <= > >=`.
 * `unix_timestamp(a) - unix_timestamp(b)` is such a difference of two longs.
 *
 * The conjuncts on one difference `D = x - y` are merged into `lower <= D <= upper`, which
 * becomes `x >= y + lower` and `x <= y + upper`, keyed by [[CandidateKey]]s. The conjuncts stay
 * in the condition: the candidates only narrow the pairs the operator looks at, so each must
 * hold on every pair the conjuncts accept, under Spark's arithmetic:
 *
 *  - '''Integers''' (byte, short, int, long; `datediff` subtracts days as ints). The keys add
 *    in long and saturate, so `y + c` cannot overflow. Strict bounds become non-strict ones on
 *    the next integer (`D < 5` is `D <= 4`), so the candidates are exactly the bounds. In ANSI
 *    mode an overflowing `x - y` fails rather than wraps, so no accepted pair overflows. Where
 *    `x - y` wraps around (ANSI off, and `datediff` always), it can only do so when an operand
 *    has magnitude `2^(w-2)` or more in a `w`-bit type, and a wrapped result then has magnitude
 *    above `2^(w-2)` too. Such rows get guarded keys that meet every row of the other side
 *    ([[WrapGuard]]): the rows of `y` always; the rows of `x` too unless the conjuncts bound `D`
 *    on both sides within `2^(w-2)`, which no wrapped result satisfies. `abs` with ANSI off
 *    returns the minimum value for itself, which only a guarded pair reaches, so it guards both.
 *  - '''Floats and doubles'''. `x - y` is rounded, so `fl(x - y) <= c` allows `x - y` up to
 *    half a step above `c`: the upper key is `y + nextUp(c)` rounded up, the lower key
 *    `y + nextDown(c)` rounded down ([[FloatingOffsetKey]]). NaN is greater than every number
 *    in Spark, so `x - y >= c` holds when `x` or `y` is NaN or both are the same infinity: a
 *    NaN `x` is above every key, and with no upper bound in the group a NaN `y` gets the
 *    lowest key. Bounds that are NaN or infinite are left alone.
 *  - '''Errors'''. With ANSI on, Spark fails a query on the first pair whose `x - y` (or
 *    `abs`) overflows. The candidates leave out pairs outside the bounds, so such a pair is
 *    never evaluated and the query may succeed where vanilla Spark fails, as its hash joins
 *    do for pairs with different keys. Every pair that is evaluated is evaluated by Spark's
 *    own expression.
 *
 * Decimals, intervals and `timestampdiff` are not rewritten.
 */
object DifferenceBounds {

  /** The candidate inequalities the conjuncts imply, a pair per bounded difference. */
  def candidates(conjuncts: Seq[Expression], left: AttributeSet, right: AttributeSet)
      : Seq[Inequality] = {
    val bounds = conjuncts.filter(_.deterministic).flatMap(bound(_, left, right))
    bounds
      .groupBy(_.difference.canonical)
      .values
      .toSeq
      .sortBy(group => bounds.indexOf(group.head)) // condition order
      .flatMap(group => inequalities(group.reduce(_ merge _)))
  }

  /** How `x - y` is computed: in a `bits`-wide integer that `wraps` on overflow, or in floating. */
  private sealed trait Arithmetic
  private final case class Integral(bits: Int, wraps: Boolean) extends Arithmetic
  private final case class Floating(dataType: DataType) extends Arithmetic

  /** `x - y` with `x` over the left input when `xLeft`, else over the right. */
  private final case class Difference(
      x: Expression,
      y: Expression,
      xLeft: Boolean,
      arithmetic: Arithmetic
  ) {
    def canonical: (Expression, Expression, Arithmetic) =
      (
        x.canonicalized,
        y.canonicalized,
        arithmetic match {
          case Integral(bits, _) => Integral(bits, wraps = false)
          case floating => floating
        }
      )
  }

  /**
   * `lower <= D <= upper`, non-strict, exact (a float or double converts exactly and back).
   * `legacyAbs`: a conjunct took `abs` of an integral `D` with ANSI off.
   */
  private final case class Bound(
      difference: Difference,
      lower: Option[BigDecimal],
      upper: Option[BigDecimal],
      legacyAbs: Boolean
  ) {
    def merge(other: Bound): Bound = {
      val wraps = (difference.arithmetic, other.difference.arithmetic) match {
        case (Integral(bits, a), Integral(_, b)) => Integral(bits, a || b)
        case (floating, _) => floating
      }
      Bound(
        difference.copy(arithmetic = wraps),
        (lower ++ other.lower).reduceOption(_ max _),
        (upper ++ other.upper).reduceOption(_ min _),
        legacyAbs || other.legacyAbs
      )
    }
  }

  /** The bound a conjunct puts on a difference, if it is one of the forms above. */
  private def bound(c: Expression, left: AttributeSet, right: AttributeSet): Option[Bound] = {
    val (term, op, constant) = c match {
      case Comparison(t, op, k) if k.foldable => (t, op, k)
      case Comparison(k, op, t) if k.foldable => (t, op.flip, k)
      case _ => return None
    }
    val value = constant.eval()
    if (value == null) return None
    exactWidening(term) match {
      case Abs(inner, failOnError) if op.leftSmaller =>
        for {
          d <- difference(inner, left, right)
          limit <- limit(d.arithmetic, value, op)
        } yield {
          val legacy = !failOnError && d.arithmetic.isInstanceOf[Integral]
          Bound(d, Some(-limit), Some(limit), legacy)
        }
      case _ =>
        for {
          d <- difference(term, left, right)
          limit <- limit(d.arithmetic, value, op)
        } yield
          if (op.leftSmaller) Bound(d, None, Some(limit), legacyAbs = false)
          else Bound(d, Some(limit), None, legacyAbs = false)
    }
  }

  /**
   * The non-strict bound `D op value` puts on `D`: for integers strict ops move to the next
   * integer; floating bounds must be finite. A float `D` compared in double takes the double
   * bound, which the keys round outwards to a float (see [[inequalities]]).
   */
  private def limit(arithmetic: Arithmetic, value: Any, op: InequalityOp): Option[BigDecimal] =
    (arithmetic, value) match {
      case (_: Integral, v @ (_: Byte | _: Short | _: Int | _: Long)) =>
        val n = BigDecimal(v.asInstanceOf[Number].longValue)
        Some(op match {
          case Lt => n - 1
          case Gt => n + 1
          case Le | Ge => n
        })
      case (_: Floating, v: Double) if !v.isNaN && !v.isInfinite => Some(BigDecimal(v))
      case (_: Floating, v: Float) if !v.isNaN && !v.isInfinite => Some(BigDecimal(v.toDouble))
      case _ => None
    }

  /** `e` as a difference of a left and a right expression, through exact widening casts. */
  private def difference(e: Expression, left: AttributeSet, right: AttributeSet)
      : Option[Difference] = {
    def oriented(x: Expression, y: Expression, arithmetic: Arithmetic) =
      JoinConditionAnalysis.sides(x, y, left, right).map(Difference(x, y, _, arithmetic))
    exactWidening(e) match {
      case s @ Subtract(x, y, _) =>
        s.dataType match {
          case dt @ (ByteType | ShortType | IntegerType | LongType) =>
            oriented(x, y, Integral(bits(dt), wraps = s.evalMode == EvalMode.LEGACY))
          case dt @ (FloatType | DoubleType) => oriented(x, y, Floating(dt))
          case _ => None
        }
      case DateDiff(end, start) => oriented(end, start, Integral(32, wraps = true))
      case _ => None
    }
  }

  private def bits(dt: DataType): Int = dt.defaultSize * 8

  /**
   * `e` without the casts that widen it exactly (an integer to a wider integer, a float to a
   * double), which type coercion puts around a difference compared with a wider constant. A
   * bound in the wider type still bounds the narrower value the same way.
   */
  private def exactWidening(e: Expression): Expression = e match {
    case Cast(inner, to, _, _) =>
      (inner.dataType, to) match {
        case (ByteType | ShortType | IntegerType, ShortType | IntegerType | LongType)
            if inner.dataType.defaultSize < to.defaultSize =>
          exactWidening(inner)
        case (FloatType, DoubleType) => exactWidening(inner)
        case _ => e
      }
    case _ => e
  }

  /** `x >= y + lower` and `x <= y + upper` as inequalities of the left and right inputs. */
  private def inequalities(b: Bound): Seq[Inequality] = {
    val d = b.difference
    def oriented(xKey: Expression, op: InequalityOp, yKey: Expression) =
      if (d.xLeft) Inequality(xKey, op, yKey) else Inequality(yKey, op.flip, xKey)
    d.arithmetic match {
      case Integral(bits, wraps) =>
        val threshold = 1L << (bits - 2)
        val within = (b.lower ++ b.upper).forall(_.abs <= threshold)
        val guardY = wraps || b.legacyAbs
        val guardX = guardY && (b.legacyAbs || b.lower.isEmpty || b.upper.isEmpty || !within)
        def guard(on: Boolean, extreme: Long) =
          if (on) Some(WrapGuard(threshold, extreme)) else None
        def clamp(v: BigDecimal) = v.max(Long.MinValue).min(Long.MaxValue).toLong
        b.lower.map { lo =>
          oriented(
            IntegralOffsetKey(d.x, 0, guard(guardX, Long.MaxValue)),
            Ge,
            IntegralOffsetKey(d.y, clamp(lo), guard(guardY, Long.MinValue))
          )
        }.toSeq ++ b.upper.map { hi =>
          oriented(
            IntegralOffsetKey(d.x, 0, guard(guardX, Long.MinValue)),
            Le,
            IntegralOffsetKey(d.y, clamp(hi), guard(guardY, Long.MaxValue))
          )
        }
      case Floating(dt) =>
        def outwards(v: BigDecimal, up: Boolean): Double = dt match {
          case FloatType =>
            val f = v.toFloat
            (if (up) Math.nextUp(f) else Math.nextDown(f)).toDouble
          case _ => if (up) Math.nextUp(v.toDouble) else Math.nextDown(v.toDouble)
        }
        b.lower.map { lo =>
          val key = FloatingOffsetKey(
            d.y,
            outwards(lo, up = false),
            roundUp = false,
            nanAsMinimum = b.upper.isEmpty
          )
          oriented(d.x, Ge, key)
        }.toSeq ++ b.upper.map { hi =>
          oriented(
            d.x,
            Le,
            FloatingOffsetKey(d.y, outwards(hi, up = true), roundUp = true, nanAsMinimum = false)
          )
        }
    }
  }
}
