package rangejoin.condition

import scala.math.BigDecimal.RoundingMode

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
 * `unix_timestamp(a) - unix_timestamp(b)` is such a difference of two longs. `x` and `y` may also
 * be timestamps or dates, whose difference is a day-time interval compared with an interval
 * constant: `abs(a.ts - b.ts) <= INTERVAL 5 SECONDS`, `a.d - b.d BETWEEN INTERVAL ...`.
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
 *  - '''Timestamps and dates'''. A day-time interval is a long count of microseconds, and Spark
 *    computes these differences exactly or fails: `ts1 - ts2` is the difference of the two
 *    timestamps as wall-clock times in the session time zone, and `d1 - d2` the days between
 *    two dates times the microseconds in a day. In a zone with one fixed offset (UTC, `+02:00`)
 *    and for `TIMESTAMP_NTZ`, the wall-clock difference is the difference of the stored
 *    microseconds, and the keys are the timestamps themselves. In a zone whose offset has ever
 *    changed (daylight saving time, or a change of standard time) it is not: across a change of
 *    clocks the two differ by the change. There each timestamp's key is its wall-clock time as
 *    microseconds ([[LocalMicrosKey]]), which makes the candidates exact again; such a key is not monotone, and it is guarded as a wrapping difference is,
 *    since it saturates within a day of the long range. A date difference's bounds in
 *    microseconds become whole days: `D <= c` is `days <= floor(c / day)`, `D >= c` is
 *    `days >= ceil(c / day)`.
 *  - '''Errors'''. With ANSI on, Spark fails a query on the first pair whose `x - y` (or
 *    `abs`) overflows. The candidates leave out pairs outside the bounds, so such a pair is
 *    never evaluated and the query may succeed where vanilla Spark fails, as its hash joins
 *    do for pairs with different keys. Every pair that is evaluated is evaluated by Spark's
 *    own expression.
 *
 * Decimals, differences of intervals, the `CalendarInterval` differences of
 * `spark.sql.legacy.interval.enabled` and `timestampdiff` are not rewritten.
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

  /**
   * How `x - y` is computed: in a `bits`-wide integer that `wraps` on overflow, `D` being `unit`
   * times that integer (the microseconds of a day for a date difference, 1 otherwise); or in
   * floating point.
   */
  private sealed trait Arithmetic
  private final case class Integral(bits: Int, wraps: Boolean, unit: Long = 1) extends Arithmetic
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
          case integral: Integral => integral.copy(wraps = false)
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
        case (a: Integral, b: Integral) => a.copy(wraps = a.wraps || b.wraps)
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
          // `abs` of an interval fails on overflow whatever `failOnError` says.
          val legacy = !failOnError && d.arithmetic.isInstanceOf[Integral] &&
            !inner.dataType.isInstanceOf[DayTimeIntervalType]
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
   * The non-strict bound `D op value` puts on `D`, in units of the integer `D` is a multiple of:
   * for integers strict ops move to the next integer, and a bound on a multiple of `unit` to the
   * multiples within it; floating bounds must be finite. A float `D` compared in double takes the
   * double bound, which the keys round outwards to a float (see [[inequalities]]).
   */
  private def limit(arithmetic: Arithmetic, value: Any, op: InequalityOp): Option[BigDecimal] =
    (arithmetic, value) match {
      case (Integral(_, _, unit), v @ (_: Byte | _: Short | _: Int | _: Long)) =>
        val n = BigDecimal(v.asInstanceOf[Number].longValue)
        val nonStrict = op match {
          case Lt => n - 1
          case Gt => n + 1
          case Le | Ge => n
        }
        val rounding = if (op.leftSmaller) RoundingMode.FLOOR else RoundingMode.CEILING
        Some((nonStrict / unit).setScale(0, rounding))
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
      case s: SubtractTimestamps if s.dataType.isInstanceOf[DayTimeIntervalType] =>
        val zone = s.zoneIdForType(s.left.dataType)
        if (zone.getRules.isFixedOffset) oriented(s.left, s.right, Integral(64, wraps = false))
        else {
          val local = Integral(64, wraps = true)
          oriented(LocalMicrosKey(s.left, zone), LocalMicrosKey(s.right, zone), local)
        }
      case s: SubtractDates if s.dataType.isInstanceOf[DayTimeIntervalType] =>
        oriented(s.left, s.right, Integral(64, wraps = false, unit = MicrosPerDay))
      case _ => None
    }
  }

  private def bits(dt: DataType): Int = dt.defaultSize * 8

  private val MicrosPerDay = 86400L * 1000 * 1000

  /**
   * `e` without the casts that widen it exactly (an integer to a wider integer, a float to a
   * double, a day-time interval to one with a finer last field), which type coercion puts around
   * a difference compared with a wider constant. A bound in the wider type still bounds the
   * narrower value the same way. (A cast between day-time intervals truncates to the target's
   * last field; the differences rewritten here are whole days or whole microseconds already.)
   */
  private def exactWidening(e: Expression): Expression = e match {
    case Cast(inner, to, _, _) =>
      (inner.dataType, to) match {
        case (ByteType | ShortType | IntegerType, ShortType | IntegerType | LongType)
            if inner.dataType.defaultSize < to.defaultSize =>
          exactWidening(inner)
        case (FloatType, DoubleType) => exactWidening(inner)
        case (from: DayTimeIntervalType, to: DayTimeIntervalType) if to.endField >= from.endField =>
          exactWidening(inner) // the same microseconds, shown with more fields
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
      case Integral(bits, wraps, _) =>
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
