package rangejoin.condition

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Equality => _, _}
import org.apache.spark.sql.types._
import org.scalatest.funsuite.AnyFunSuite

import rangejoin.local.InequalityOp.{Ge, Le}

/**
 * The candidate inequalities [[JoinConditionAnalysis]] derives from differences and open ends
 * ([[DifferenceBounds]], [[OpenEnds]]), built by hand, and the [[CandidateKey]]s they compare,
 * interpreted and generated. End to end, against vanilla Spark: `RewrittenConditionsSuite`.
 */
class CandidateInequalitiesSuite extends AnyFunSuite {

  private def column(name: String, dt: DataType) = AttributeReference(name, dt)()

  private val (lx, rx) = (column("x", IntegerType), column("x", IntegerType))
  private val (ld, rd) = (column("d", DoubleType), column("d", DoubleType))
  private val (lt, rt) = (column("t", DateType), column("t", DateType))
  private val left = AttributeSet(Seq(lx, ld, lt))
  private val right = AttributeSet(Seq(rx, rd, rt))

  private def analyze(conjuncts: Expression*): JoinConjuncts =
    JoinConditionAnalysis.analyze(conjuncts.reduce(And), left, right)

  private def ansi(a: Expression, b: Expression) = Subtract(a, b, EvalMode.ANSI)
  private def legacy(a: Expression, b: Expression) = Subtract(a, b, EvalMode.LEGACY)
  private def key(e: Expression, offset: Long, guard: Option[WrapGuard] = None) =
    IntegralOffsetKey(e, offset, guard)
  private val (toMin, toMax) =
    (Some(WrapGuard(1L << 30, Long.MinValue)), Some(WrapGuard(1L << 30, Long.MaxValue)))

  test("abs() of an ANSI difference: a pair of candidates, the conjunct kept as the residual") {
    val c = LessThanOrEqual(Abs(ansi(lx, rx), failOnError = true), Literal(5))
    assert(
      analyze(c) == JoinConjuncts(
        Nil,
        Seq(Inequality(key(lx, 0), Ge, key(rx, -5)), Inequality(key(lx, 0), Le, key(rx, 5))),
        Seq(c)
      )
    )
  }

  test("strict bounds move to the next integer; a right-minus-left difference flips") {
    // r.x - l.x < 5 is r.x <= l.x + 4: the left key carries the offset.
    val c = LessThan(ansi(rx, lx), Literal(5))
    assert(analyze(c).inequalities == Seq(Inequality(key(lx, 4), Ge, key(rx, 0))))
    // 3 < l.x - r.x is l.x >= r.x + 4.
    val d = LessThan(Literal(3), ansi(lx, rx))
    assert(analyze(d).inequalities == Seq(Inequality(key(lx, 0), Ge, key(rx, 4))))
  }

  test("BETWEEN's two conjuncts on one difference merge into one pair, the tighter bounds") {
    val d = ansi(lx, rx)
    val conjuncts = Seq(
      GreaterThanOrEqual(d, Literal(-2)),
      LessThanOrEqual(d, Literal(3)),
      LessThanOrEqual(d, Literal(7))
    )
    assert(
      analyze(conjuncts: _*).inequalities ==
        Seq(Inequality(key(lx, 0), Ge, key(rx, -2)), Inequality(key(lx, 0), Le, key(rx, 3)))
    )
    assert(analyze(conjuncts: _*).residuals == conjuncts)
  }

  test("a wrapping difference guards the right operand, and both when one-sided") {
    val band = Seq(
      GreaterThanOrEqual(legacy(lx, rx), Literal(-2)),
      LessThanOrEqual(legacy(lx, rx), Literal(2))
    )
    assert(
      analyze(band: _*).inequalities == Seq(
        Inequality(key(lx, 0), Ge, key(rx, -2, toMin)),
        Inequality(key(lx, 0), Le, key(rx, 2, toMax))
      )
    )
    val oneSided = LessThan(legacy(lx, rx), Literal(2))
    assert(analyze(oneSided).inequalities == Seq(Inequality(
      key(lx, 0, toMin),
      Le,
      key(rx, 1, toMax)
    )))
    // datediff subtracts days as ints, wrapping in every mode; abs() with ANSI off guards both.
    val days = LessThanOrEqual(DateDiff(lt, rt), Literal(7))
    assert(analyze(days).inequalities == Seq(Inequality(key(lt, 0, toMin), Le, key(rt, 7, toMax))))
    val abs = LessThanOrEqual(Abs(ansi(lx, rx), failOnError = false), Literal(1))
    assert(
      analyze(abs).inequalities == Seq(
        Inequality(key(lx, 0, toMax), Ge, key(rx, -1, toMin)),
        Inequality(key(lx, 0, toMin), Le, key(rx, 1, toMax))
      )
    )
  }

  test("doubles: offsets a step outwards; NaN below every key only without an upper bound") {
    val d = Subtract(ld, rd)
    val band = Seq(GreaterThanOrEqual(d, Literal(-0.5)), LessThan(d, Literal(0.5)))
    assert(
      analyze(band: _*).inequalities == Seq(
        Inequality(ld, Ge, FloatingOffsetKey(rd, Math.nextDown(-0.5), false, nanAsMinimum = false)),
        Inequality(ld, Le, FloatingOffsetKey(rd, Math.nextUp(0.5), true, nanAsMinimum = false))
      )
    )
    assert(
      analyze(GreaterThan(d, Literal(0.5))).inequalities ==
        Seq(Inequality(
          ld,
          Ge,
          FloatingOffsetKey(rd, Math.nextDown(0.5), false, nanAsMinimum = true)
        ))
    )
  }

  test("an open end: nvl(e, +inf) above, and a NULL x below, every key") {
    val c = Or(LessThan(lx, rx), IsNull(rx))
    assert(
      analyze(c) == JoinConjuncts(
        Nil,
        Seq(Inequality(NullAsBoundKey(lx, high = false), Le, NullAsBoundKey(rx, high = true))),
        Seq(c)
      )
    )
    // r.t IS NULL OR r.t >= l.t, the NULL test first: r.t bounds l.t from above.
    val d = Or(IsNull(rt), GreaterThanOrEqual(rt, lt))
    assert(
      analyze(d).inequalities ==
        Seq(Inequality(NullAsBoundKey(lt, high = false), Le, NullAsBoundKey(rt, high = true)))
    )
  }

  test("forms that imply no inequality give no candidate") {
    val none = Seq(
      GreaterThan(Abs(ansi(lx, rx), failOnError = true), Literal(5)), // outside a band
      LessThan(ansi(lx, column("y", IntegerType)), Literal(5)), // y is on neither side
      LessThan(ansi(lx, rx), Literal(null, IntegerType)),
      LessThan(Subtract(ld, rd), Literal(Double.NaN)),
      LessThan(Subtract(ld, rd), Literal(Double.PositiveInfinity)),
      Or(LessThan(lx, rx), IsNull(Literal(null, IntegerType))),
      Or(LessThan(ld, rd), GreaterThan(ld, rd))
    )
    for (c <- none) assert(analyze(c).inequalities.isEmpty, c.sql)
    val (lm, rm) = (column("m", DecimalType(10, 2)), column("m", DecimalType(10, 2)))
    val decimal = LessThan(Subtract(lm, rm), Literal(Decimal(1), DecimalType(10, 2)))
    assert(
      JoinConditionAnalysis
        .analyze(decimal, AttributeSet(Seq(lm)), AttributeSet(Seq(rm)))
        .inequalities
        .isEmpty
    )
  }

  /** `k` over its child bound to input 0, interpreted and generated, on each value. */
  private def evaluations(k: Expression, values: Seq[Any]): (Seq[Any], Seq[Any]) = {
    val generated = UnsafeProjection.create(Seq(k))
    val interpreted = InterpretedUnsafeProjection.createProjection(Seq(k))
    def run(p: UnsafeProjection) = values.map { v =>
      val row = p(InternalRow(v))
      if (row.isNullAt(0)) null else row.get(0, k.dataType)
    }
    (run(interpreted), run(generated))
  }

  /** `k` on each value, as strings (NaN equals itself), the same interpreted and generated. */
  private def evaluate(k: Expression, values: Seq[Any]): Seq[String] = {
    val (interpreted, generated) = evaluations(k, values)
    assert(interpreted.map(String.valueOf) == generated.map(String.valueOf), k.sql)
    interpreted.map(String.valueOf)
  }

  private def strings(values: Any*): Seq[String] = values.map(String.valueOf)

  test("IntegralOffsetKey saturates at the long range and guards large values") {
    val bound = BoundReference(0, LongType, nullable = true)
    val values = Seq[Any](null, 0L, 5L, Long.MaxValue - 1, Long.MinValue + 1, 1L << 62, -(1L << 62))
    assert(
      evaluate(key(bound, 3), values) ==
        strings(null, 3L, 8L, Long.MaxValue, Long.MinValue + 4, (1L << 62) + 3, -(1L << 62) + 3)
    )
    assert(evaluate(key(bound, -3), values).drop(3).take(2) == strings(
      Long.MaxValue - 4,
      Long.MinValue
    ))
    val guarded = key(bound, 3, Some(WrapGuard(1L << 62, Long.MinValue)))
    assert(evaluate(guarded, values).takeRight(2) == strings(Long.MinValue, Long.MinValue))
    val int = BoundReference(0, IntegerType, nullable = true)
    assert(evaluate(key(int, Long.MaxValue), Seq(Int.MaxValue, -1)) == strings(
      Long.MaxValue,
      Long.MaxValue - 1
    ))
  }

  test("FloatingOffsetKey rounds outwards and maps NaN; NullAsBoundKey fills NULLs") {
    val double = BoundReference(0, DoubleType, nullable = true)
    val values = Seq[Any](0.2, Double.NaN, Double.PositiveInfinity, Double.NegativeInfinity, null)
    val up = evaluate(FloatingOffsetKey(double, 0.7, roundUp = true, nanAsMinimum = false), values)
    assert(up.take(4) == strings(
      Math.nextUp(0.2 + 0.7),
      Double.NaN,
      Double.PositiveInfinity,
      -Double.MaxValue
    ))
    val down =
      evaluate(FloatingOffsetKey(double, 0.7, roundUp = false, nanAsMinimum = true), values)
    assert(down.take(2) == strings(Math.nextDown(0.2 + 0.7), Double.NegativeInfinity))
    val float = BoundReference(0, FloatType, nullable = true)
    assert(evaluate(
      FloatingOffsetKey(float, 0.5, roundUp = true, nanAsMinimum = false),
      Seq(1.0f)
    ) ==
      strings(Math.nextUp(1.5f)))
    val date = BoundReference(0, DateType, nullable = true)
    assert(evaluate(NullAsBoundKey(date, high = true), Seq(null, 3)) == strings(Int.MaxValue, 3))
    assert(evaluate(NullAsBoundKey(double, high = true), Seq(null)) == strings(Double.NaN))
    assert(evaluate(
      NullAsBoundKey(double, high = false),
      Seq(null)
    ) == strings(Double.NegativeInfinity))
  }
}
