package rangejoin.condition

import org.apache.spark.sql.catalyst.expressions.{Equality => _, _}
import org.apache.spark.sql.types._
import org.scalatest.funsuite.AnyFunSuite

import rangejoin.local.InequalityOp
import rangejoin.local.InequalityOp.{Ge, Gt, Le, Lt}
import rangejoin.shims.CollatedStrings

/** How [[JoinConditionAnalysis]] splits a join condition, on Catalyst expressions built by hand. */
class JoinConditionAnalysisSuite extends AnyFunSuite {

  private def column(name: String, dt: DataType = IntegerType) = AttributeReference(name, dt)()

  // Columns of the left input l and the right input r.
  private val (lx, ly, lz) = (column("x"), column("y"), column("z"))
  private val (rx, ry, rz) = (column("x"), column("y"), column("z"))
  private val left = AttributeSet(Seq(lx, ly, lz))
  private val right = AttributeSet(Seq(rx, ry, rz))

  private def analyze(conjuncts: Expression*): JoinConjuncts =
    JoinConditionAnalysis.analyze(conjuncts.reduce(And), left, right)

  private def residual(c: Expression): Unit =
    assert(analyze(c) == JoinConjuncts(Nil, Nil, Seq(c)), c.sql)

  test("an equality and a null-safe equality, each oriented left = right") {
    assert(analyze(EqualTo(lx, rx)).equalities == Seq(Equality(lx, rx, nullSafe = false)))
    assert(analyze(EqualTo(ry, lx)).equalities == Seq(Equality(lx, ry, nullSafe = false)))
    assert(analyze(EqualNullSafe(lx, ry)).equalities == Seq(Equality(lx, ry, nullSafe = true)))
    assert(analyze(EqualNullSafe(rx, lx)).equalities == Seq(Equality(lx, rx, nullSafe = true)))
    val both = analyze(EqualTo(lx, rx), EqualNullSafe(ry, ly))
    assert(both == JoinConjuncts(Seq(Equality(lx, rx, false), Equality(ly, ry, true)), Nil, Nil))
    assert(Equality(lx, ry, nullSafe = true).toString == s"${lx.sql} <=> ${ry.sql}")
  }

  test("an inequality keeps its op when the left input is on the left, else flips it") {
    val cases = Seq[(Expression, Inequality)](
      LessThan(lx, rx) -> Inequality(lx, Lt, rx),
      LessThanOrEqual(lx, rx) -> Inequality(lx, Le, rx),
      GreaterThan(lx, rx) -> Inequality(lx, Gt, rx),
      GreaterThanOrEqual(lx, rx) -> Inequality(lx, Ge, rx),
      // r.x > l.x is l.x < r.x, and so on.
      GreaterThan(rx, lx) -> Inequality(lx, Lt, rx),
      GreaterThanOrEqual(rx, lx) -> Inequality(lx, Le, rx),
      LessThan(rx, lx) -> Inequality(lx, Gt, rx),
      LessThanOrEqual(ry, lx) -> Inequality(lx, Ge, ry)
    )
    for ((c, expected) <- cases) {
      assert(analyze(c) == JoinConjuncts(Nil, Seq(expected), Nil), c.sql)
      // The flipped inequality means the same as the conjunct it came from.
      assert(expected.toExpression.semanticEquals(c), c.sql)
    }
  }

  test("a comparison or equality over one input, or over both in one operand, is a residual") {
    residual(LessThan(lx, ly))
    residual(GreaterThan(ry, rz))
    residual(EqualTo(lx, ly))
    residual(EqualNullSafe(rx, ry))
    residual(LessThan(Add(lx, rx, EvalMode.ANSI), ry))
    residual(EqualTo(Add(lx, rx, EvalMode.ANSI), ly))
    // An operand must reference a column: a literal side is a filter, not a key.
    residual(LessThan(lx, Literal(3)))
    residual(EqualTo(Literal(3), rx))
  }

  test("a non-deterministic conjunct is a residual") {
    val (ld, rd) = (column("d", DoubleType), column("d", DoubleType))
    val noisy = Add(ld, Rand(Literal(7L)), EvalMode.ANSI)
    val conjuncts = JoinConditionAnalysis.analyze(
      And(LessThan(noisy, rd), EqualTo(noisy, rd)),
      AttributeSet(Seq(ld)),
      AttributeSet(Seq(rd))
    )
    assert(conjuncts == JoinConjuncts(Nil, Nil, Seq(LessThan(noisy, rd), EqualTo(noisy, rd))))
    // The same conjuncts without the random term are keys.
    val plain = JoinConditionAnalysis.analyze(
      And(LessThan(ld, rd), EqualTo(ld, rd)),
      AttributeSet(Seq(ld)),
      AttributeSet(Seq(rd))
    )
    assert(plain.inequalities.size == 1 && plain.equalities.size == 1 && plain.residuals.isEmpty)
  }

  test("inequalities on key types the operators cannot sort are residuals") {
    val unsortable = CollatedStrings.caseInsensitive.toSeq ++ Seq(
      ArrayType(IntegerType),
      MapType(IntegerType, IntegerType),
      new StructType().add("f", IntegerType),
      CalendarIntervalType,
      NullType
    )
    for (dt <- unsortable) {
      val (l, r) = (column("k", dt), column("k", dt))
      val c = LessThan(l, r)
      assert(!JoinConditionAnalysis.isSortableKeyType(dt), dt)
      val conjuncts = JoinConditionAnalysis.analyze(c, AttributeSet(Seq(l)), AttributeSet(Seq(r)))
      assert(conjuncts == JoinConjuncts(Nil, Nil, Seq(c)), dt)
    }
    // Equalities are classified whatever their type; the strategy decides whether it can key
    // on them.
    val (la, ra) = (column("k", ArrayType(IntegerType)), column("k", ArrayType(IntegerType)))
    val eq =
      JoinConditionAnalysis.analyze(EqualTo(la, ra), AttributeSet(Seq(la)), AttributeSet(Seq(ra)))
    assert(eq.equalities == Seq(Equality(la, ra, nullSafe = false)))
  }

  test("every type the operators sort gives an inequality") {
    val sortable = Seq(
      BooleanType,
      ByteType,
      ShortType,
      IntegerType,
      LongType,
      FloatType,
      DoubleType,
      DateType,
      TimestampType,
      TimestampNTZType,
      DecimalType(10, 2),
      DecimalType(38, 0),
      BinaryType,
      StringType,
      YearMonthIntervalType(),
      DayTimeIntervalType()
    )
    for (dt <- sortable) {
      val (l, r) = (column("k", dt), column("k", dt))
      val conjuncts =
        JoinConditionAnalysis.analyze(GreaterThan(r, l), AttributeSet(Seq(l)), AttributeSet(Seq(r)))
      assert(conjuncts == JoinConjuncts(Nil, Seq(Inequality(l, Lt, r)), Nil), dt)
    }
  }

  test("BETWEEN, as Spark rewrites it, is two inequalities; conjunct order is kept") {
    // l.x BETWEEN r.x AND r.y + 5, as it reaches the planner once the optimizer has inlined the
    // common `l.x` of Between's replacement.
    val upper = Add(ry, Literal(5), EvalMode.ANSI)
    val between = And(GreaterThanOrEqual(lx, rx), LessThanOrEqual(lx, upper))
    assert(
      JoinConditionAnalysis.analyze(between, left, right) ==
        JoinConjuncts(Nil, Seq(Inequality(lx, Ge, rx), Inequality(lx, Le, upper)), Nil)
    )
    // In any mix, each kind keeps the condition's order.
    val mixed = analyze(
      LessThan(lz, rz),
      EqualTo(ry, ly),
      Or(LessThan(lx, rx), GreaterThan(ly, ry)),
      GreaterThan(rx, lx),
      EqualTo(lx, rx),
      LessThan(lx, ly)
    )
    assert(mixed.equalities == Seq(Equality(ly, ry, false), Equality(lx, rx, false)))
    assert(mixed.inequalities == Seq(Inequality(lz, Lt, rz), Inequality(lx, Lt, rx)))
    assert(mixed.residuals == Seq(Or(LessThan(lx, rx), GreaterThan(ly, ry)), LessThan(lx, ly)))
  }

  test("an expression over one input is a key like a column") {
    val sum = Add(lx, ly, EvalMode.ANSI)
    val scaled = Multiply(rx, Literal(2), EvalMode.ANSI)
    val widened = Cast(rz, LongType)
    assert(analyze(LessThan(sum, scaled)).inequalities == Seq(Inequality(sum, Lt, scaled)))
    assert(analyze(GreaterThanOrEqual(
      scaled,
      sum
    )).inequalities == Seq(Inequality(sum, Le, scaled)))
    assert(
      analyze(GreaterThan(Cast(lx, LongType), widened)).inequalities ==
        Seq(Inequality(Cast(lx, LongType), Gt, widened))
    )
    assert(analyze(EqualTo(scaled, sum)).equalities == Seq(Equality(sum, scaled, nullSafe = false)))
  }

  test("Comparison builds and takes apart the four predicates") {
    for (op <- Seq[InequalityOp](Lt, Le, Gt, Ge)) {
      val e = Comparison(lx, op, rx)
      assert(Comparison.unapply(e) == Some((lx, op, rx)))
      assert(Inequality(lx, op, rx).toExpression == e)
    }
    assert(Comparison(lx, Lt, rx) == LessThan(lx, rx))
    assert(Comparison(lx, Ge, rx) == GreaterThanOrEqual(lx, rx))
    assert(Comparison.unapply(EqualTo(lx, rx)).isEmpty)
  }
}
