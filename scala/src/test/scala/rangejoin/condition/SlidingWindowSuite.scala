package rangejoin.condition

import java.time.{Duration, Period}

import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.types._
import org.scalatest.funsuite.AnyFunSuite

import rangejoin.local.InequalityOp.{Ge, Gt, Le, Lt}
import rangejoin.shims.{CollatedStrings, TimestampPlusInterval}

/** Which inequalities form a [[SlidingWindow]], and which expressions are a column plus an offset. */
class SlidingWindowSuite extends AnyFunSuite {

  private def column(name: String, dt: DataType = IntegerType) = AttributeReference(name, dt)()

  // Columns a, b, c of the left input and of the right input.
  private val (la, lb, lc) = (column("a"), column("b"), column("c"))
  private val (ra, rb, rc) = (column("a"), column("b"), column("c"))

  private def plus(e: Expression, n: Int, mode: EvalMode.Value = EvalMode.ANSI) =
    Add(e, Literal(n), mode)

  private def minus(e: Expression, n: Int, mode: EvalMode.Value = EvalMode.ANSI) =
    Subtract(e, Literal(n), mode)

  /** `e` is a constant offset of `col`: column(e) finds `col` itself. */
  private def offsetOf(e: Expression, col: Expression): Unit =
    assert(SlidingWindow.column(e) == Some(col), e.sql)

  /** `e` is not a constant offset of `col`: it can only be a column of its own, or none. */
  private def notOffsetOf(e: Expression, col: Expression): Unit =
    assert(!SlidingWindow.column(e).contains(col), e.sql)

  test("find pairs a lower and an upper bound on one column pair, in either order") {
    // l.a >= r.a AND l.a < r.a + 5: r.a in (l.a - 5, l.a]
    val upper = Inequality(la, Ge, ra)
    val lower = Inequality(la, Lt, plus(ra, 5))
    val expected = SlidingWindow(la, ra, lower, upper)
    assert(SlidingWindow.find(Seq(upper, lower)) == Some((expected, Nil)))
    assert(SlidingWindow.find(Seq(lower, upper)) == Some((expected, Nil)))
    // Offsets on the left side, `<=` and `>`.
    val lower2 = Inequality(minus(la, 2), Le, rb)
    val upper2 = Inequality(plus(la, 1), Gt, minus(rb, 3))
    assert(
      SlidingWindow.find(Seq(upper2, lower2)) ==
        Some((SlidingWindow(la, rb, lower2, upper2), Nil))
    )
  }

  test("find rejects bounds that point the same way or lie on different columns") {
    val sameWay = Seq(
      Seq(Inequality(la, Lt, plus(ra, 5)), Inequality(la, Le, ra)),
      Seq(Inequality(la, Gt, ra), Inequality(la, Ge, minus(ra, 3)))
    )
    val otherColumns = Seq(
      Seq(Inequality(la, Lt, ra), Inequality(lb, Gt, rb)),
      Seq(Inequality(la, Lt, ra), Inequality(la, Gt, rb)),
      Seq(Inequality(la, Lt, ra), Inequality(lb, Gt, ra))
    )
    for (ineqs <- sameWay ++ otherColumns) assert(SlidingWindow.find(ineqs).isEmpty, ineqs)
    assert(SlidingWindow.find(Nil).isEmpty)
    assert(SlidingWindow.find(Seq(Inequality(la, Lt, ra))).isEmpty)
  }

  test("find returns the first window and every other inequality in order") {
    val others1 = Inequality(lb, Lt, rb)
    val others2 = Inequality(lc, Gt, rc)
    val upper = Inequality(la, Ge, ra)
    val lower = Inequality(la, Lt, plus(ra, 1))
    assert(
      SlidingWindow.find(Seq(others1, upper, others2, lower)) ==
        Some((SlidingWindow(la, ra, lower, upper), Seq(others1, others2)))
    )
    // Two windows: pairs are tried in index order, (0, 3) before (1, 2).
    val (bLower, bUpper) = (Inequality(lb, Lt, rb), Inequality(lb, Gt, rb))
    assert(
      SlidingWindow.find(Seq(lower, bLower, bUpper, upper)) ==
        Some((SlidingWindow(la, ra, lower, upper), Seq(bLower, bUpper)))
    )
  }

  test("column: a column, or a column plus or minus a foldable constant") {
    offsetOf(la, la)
    offsetOf(plus(la, 3), la)
    offsetOf(Add(Literal(3), la, EvalMode.ANSI), la)
    offsetOf(minus(la, 3), la)
    offsetOf(minus(plus(la, 1), 2), la)
    offsetOf(Add(la, Add(Literal(1), Literal(2), EvalMode.ANSI), EvalMode.ANSI), la)
    offsetOf(Cast(la, IntegerType), la)
    // `3 - a` falls as `a` grows: not an offset of `a`, but an expression of its own.
    notOffsetOf(Subtract(Literal(3), la, EvalMode.ANSI), la)
    assert(SlidingWindow.column(Subtract(Literal(3), la, EvalMode.ANSI)).isDefined)
    // An offset that is not constant, or a cast to another type, makes a column of its own.
    assert(SlidingWindow.column(Add(la, lb, EvalMode.ANSI)) == Some(Add(la, lb, EvalMode.ANSI)))
    assert(SlidingWindow.column(Cast(la, LongType)) == Some(Cast(la, LongType)))
  }

  test("column: a date plus days, a date or timestamp plus an interval") {
    val date = column("d", DateType)
    offsetOf(DateAdd(date, Literal(3)), date)
    offsetOf(DateAdd(date, Literal(-3)), date)
    offsetOf(DateAddYMInterval(date, Literal(Period.ofMonths(2))), date)
    for (dt <- Seq(TimestampType, TimestampNTZType)) {
      val ts = column("t", dt)
      offsetOf(TimestampPlusInterval(ts, Literal(Duration.ofSeconds(5))), ts)
      offsetOf(TimestampPlusInterval(ts, Literal(Duration.ofSeconds(-5))), ts)
      offsetOf(TimestampAddYMInterval(ts, Literal(Period.ofMonths(1))), ts)
    }
    val days = column("n")
    notOffsetOf(DateAdd(date, days), date)
  }

  test("column: integral and decimal offsets only in ANSI mode, where overflow fails") {
    val decimalType = DecimalType(10, 2)
    val columns = Seq(
      column("i") -> Literal(3),
      column("l", LongType) -> Literal(3L),
      column("s", ShortType) -> Literal(3.toShort),
      column("b", ByteType) -> Literal(3.toByte),
      column("m", decimalType) -> Literal.create(BigDecimal("0.75"), decimalType)
    )
    for ((col, c) <- columns) {
      offsetOf(Add(col, c, EvalMode.ANSI), col)
      offsetOf(Subtract(col, c, EvalMode.ANSI), col)
      offsetOf(Add(c, col, EvalMode.ANSI), col)
      for (mode <- Seq(EvalMode.LEGACY, EvalMode.TRY)) {
        notOffsetOf(Add(col, c, mode), col)
        notOffsetOf(Subtract(col, c, mode), col)
        notOffsetOf(Add(c, col, mode), col)
      }
    }
    // So a window with a wrapping offset is no window.
    val bounds = (mode: EvalMode.Value) =>
      Seq(Inequality(la, Ge, ra), Inequality(la, Lt, plus(ra, 5, mode)))
    assert(SlidingWindow.find(bounds(EvalMode.ANSI)).isDefined)
    assert(SlidingWindow.find(bounds(EvalMode.LEGACY)).isEmpty)
  }

  test("column: finite or NULL floating-point offsets, in any mode") {
    val (d, f) = (column("d", DoubleType), column("f", FloatType))
    for (mode <- Seq(EvalMode.ANSI, EvalMode.LEGACY)) {
      offsetOf(Add(d, Literal(0.75), mode), d)
      offsetOf(Subtract(d, Literal(-1e300), mode), d)
      offsetOf(Add(f, Literal(0.5f), mode), f)
      // NULL + a column is NULL for every row: the bound never holds, which keeps the order.
      offsetOf(Add(d, Literal(null, DoubleType), mode), d)
      offsetOf(Add(f, Literal(null, FloatType), mode), f)
      // -Infinity + Infinity is NaN, which sorts above every number.
      for (inf <- Seq(Double.PositiveInfinity, Double.NegativeInfinity)) {
        notOffsetOf(Add(d, Literal(inf), mode), d)
        notOffsetOf(Subtract(d, Literal(inf), mode), d)
        notOffsetOf(Add(f, Literal(inf.toFloat), mode), f)
      }
    }
    val (ld, rd) = (column("d", DoubleType), column("d", DoubleType))
    val window = (c: Double) =>
      Seq(Inequality(ld, Ge, rd), Inequality(ld, Lt, Add(rd, Literal(c), EvalMode.LEGACY)))
    assert(SlidingWindow.find(window(2.5)).isDefined)
    assert(SlidingWindow.find(window(Double.PositiveInfinity)).isEmpty)
  }

  test("column: none for a non-deterministic, column-free or unsortable expression") {
    val d = column("d", DoubleType)
    assert(SlidingWindow.column(Rand(Literal(1L))).isEmpty)
    assert(SlidingWindow.column(Add(d, Rand(Literal(1L)), EvalMode.ANSI)).isEmpty)
    assert(SlidingWindow.column(Add(Rand(Literal(1L)), Literal(1.0), EvalMode.ANSI)).isEmpty)
    assert(SlidingWindow.column(Literal(3)).isEmpty)
    for (lcase <- CollatedStrings.caseInsensitive) {
      assert(SlidingWindow.column(column("s", lcase)).isEmpty)
    }
    assert(SlidingWindow.column(column("arr", ArrayType(IntegerType))).isEmpty)
    val strings = column("s", StringType)
    assert(SlidingWindow.column(strings) == Some(strings))
  }
}
