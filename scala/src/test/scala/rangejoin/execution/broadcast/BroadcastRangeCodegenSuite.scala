package rangejoin.execution.broadcast

import scala.util.Random

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{
  BoundReference,
  Expression,
  GenericInternalRow,
  UnaryExpression,
  UnsafeProjection
}
import org.apache.spark.sql.catalyst.expressions.codegen.{CodegenContext, ExprCode}
import org.apache.spark.sql.catalyst.expressions.codegen.Block._
import org.apache.spark.sql.catalyst.expressions.codegen.GenerateUnsafeProjection
import org.apache.spark.sql.types._
import org.scalatest.funsuite.AnyFunSuite

import rangejoin.execution.blocks.{KeyEncoder, LongKeyEncoder}

/**
 * The generated key codes ([[BroadcastRangeCodegen.keyCode]]) against the interpreted probe's:
 * the key projected into an UnsafeRow, NULL when the projection writes NULL, else the
 * [[KeyEncoder.forType]] closure's code.
 */
class BroadcastRangeCodegenSuite extends AnyFunSuite {

  /** The generated key code of `child`; NULL for a NULL key or one that does not fit its type. */
  private case class GeneratedKeyCode(child: Expression) extends UnaryExpression {
    override def dataType: DataType = LongType
    override def nullable: Boolean = true
    override def eval(input: InternalRow): Any =
      throw new UnsupportedOperationException("only generated")
    override protected def doGenCode(ctx: CodegenContext, ev: ExprCode): ExprCode = {
      val c = child.genCode(ctx)
      val key = BroadcastRangeCodegen.keyCode(child.dataType, c.value.toString).get
      ev.copy(code = code"""
        |${c.code}
        |boolean ${ev.isNull} = ${c.isNull} || !(${key.valid});
        |long ${ev.value} = ${ev.isNull} ? 0L : ${key.code};
        |""".stripMargin)
    }
    override protected def withNewChildInternal(c: Expression): Expression = copy(child = c)
  }

  private val rnd = new Random(20261123L)

  private val specialDoubles = Seq(
    0.0,
    -0.0,
    1.0,
    -1.0,
    Double.MinPositiveValue,
    -Double.MinPositiveValue,
    Double.MaxValue,
    -Double.MaxValue,
    Double.PositiveInfinity,
    Double.NegativeInfinity,
    Double.NaN,
    java.lang.Double.longBitsToDouble(0x7ff0000000000001L), // another NaN
    java.lang.Double.longBitsToDouble(0xfff8000000000000L), // a negative NaN
    java.lang.Double.longBitsToDouble(0xffffffffffffffffL)
  )

  private val specialFloats = specialDoubles.map(_.toFloat) ++ Seq(
    Float.MinPositiveValue,
    -Float.MaxValue,
    java.lang.Float.intBitsToFloat(0x7f800001), // another NaN
    java.lang.Float.intBitsToFloat(0xffc00000) // a negative NaN
  )

  private def ints = Seq(0, 1, -1, Int.MinValue, Int.MaxValue) ++ Seq.fill(200)(rnd.nextInt())
  private def longs =
    Seq(0L, 1L, -1L, Long.MinValue, Long.MaxValue, Int.MinValue.toLong, Int.MaxValue + 1L) ++
      Seq.fill(200)(rnd.nextLong())

  /** Decimals of `d`, at its scale, with up to its precision's digits. */
  private def decimals(d: DecimalType): Seq[Decimal] = {
    val max = BigInt(10).pow(d.precision) - 1
    val unscaled = Seq(BigInt(0), BigInt(1), -BigInt(1), max, -max) ++
      Seq.fill(200)(BigInt(63, rnd).mod(max + 1) * (if (rnd.nextBoolean()) 1 else -1))
    unscaled.map(u => Decimal(BigDecimal(u, d.scale), d.precision, d.scale))
  }

  /** Values of each type with a code, in Spark's internal representation (NULL included). */
  private val cases: Seq[(DataType, Seq[Any])] = Seq(
    BooleanType -> Seq(true, false),
    ByteType -> (Seq(Byte.MinValue, Byte.MaxValue, 0.toByte) ++ ints.map(_.toByte)),
    ShortType -> (Seq(Short.MinValue, Short.MaxValue) ++ ints.map(_.toShort)),
    IntegerType -> ints,
    DateType -> ints,
    YearMonthIntervalType() -> ints,
    LongType -> longs,
    TimestampType -> longs,
    TimestampNTZType -> longs,
    DayTimeIntervalType() -> longs,
    FloatType -> (specialFloats ++ Seq.fill(300)(java.lang.Float.intBitsToFloat(rnd.nextInt()))),
    DoubleType ->
      (specialDoubles ++ Seq.fill(300)(java.lang.Double.longBitsToDouble(rnd.nextLong()))),
    DecimalType(1, 0) -> decimals(DecimalType(1, 0)),
    DecimalType(10, 2) -> decimals(DecimalType(10, 2)),
    DecimalType(9, 9) -> decimals(DecimalType(9, 9)),
    DecimalType(18, 0) -> decimals(DecimalType(18, 0)),
    // Values a projection must rescale (a smaller scale) or cannot fit (too many digits).
    DecimalType(18, 6) -> (decimals(DecimalType(18, 6)) ++
      Seq(
        Decimal(BigDecimal("12.5")),
        Decimal(BigDecimal("-0.001")),
        Decimal(BigDecimal("10000000000000"))
      ))
  ).map { case (dt, values) => dt -> (values :+ null) }

  /** A fresh copy: the projections may rescale a decimal in place. */
  private def fresh(v: Any): Any = v match {
    case d: Decimal => d.clone()
    case other => other
  }

  test("generated key codes equal the KeyEncoder's on projected keys, NULLs included") {
    for ((dt, values) <- cases) {
      val interpreted = UnsafeProjection.create(Seq(BoundReference(0, dt, nullable = true)))
      val code = KeyEncoder.forType(dt) match {
        case LongKeyEncoder(c) => c
        case other => fail(s"$dt has no fixed-width code: $other")
      }
      val generated =
        GenerateUnsafeProjection.generate(Seq(GeneratedKeyCode(BoundReference(0, dt, true))))
      for (v <- values) {
        val k = interpreted(new GenericInternalRow(Array[Any](fresh(v))))
        val expected = if (k.anyNull) None else Some(code(k, 0))
        val g = generated(new GenericInternalRow(Array[Any](fresh(v))))
        val actual = if (g.isNullAt(0)) None else Some(g.getLong(0))
        assert(actual == expected, s"$dt value $v")
      }
    }
  }

  test("exactly the types with a fixed-width code have a generated one") {
    val types = cases.map(_._1) ++ Seq(
      StringType,
      BinaryType,
      DecimalType(19, 0),
      DecimalType(38, 10),
      CalendarIntervalType,
      NullType
    )
    for (dt <- types)
      assert(
        BroadcastRangeCodegen.keyCode(dt, "v").isDefined ==
          KeyEncoder.forType(dt).isInstanceOf[LongKeyEncoder],
        dt
      )
  }
}
