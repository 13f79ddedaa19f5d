package rangejoin.execution.blocks

import org.apache.spark.sql.catalyst.types.PhysicalDataType
import org.apache.spark.sql.types.{DoubleType, FloatType}
import org.scalatest.funsuite.AnyFunSuite

/** Float and double codes must order exactly as Spark does: NaN largest, -0.0 == 0.0. */
class KeyEncoderSuite extends AnyFunSuite {

  private val doubles = Seq(
    Double.NegativeInfinity,
    -Double.MaxValue,
    -1.5,
    -Double.MinPositiveValue,
    -0.0,
    0.0,
    Double.MinPositiveValue,
    1.5,
    Double.MaxValue,
    Double.PositiveInfinity,
    Double.NaN,
    java.lang.Double.longBitsToDouble(0x7ff0000000000001L), // another NaN
    java.lang.Double.longBitsToDouble(0xfff8000000000000L) // a negative NaN
  )

  test("double codes follow Spark's double ordering") {
    val ordering = PhysicalDataType.ordering(DoubleType)
    for (a <- doubles; b <- doubles) {
      val expected = Integer.signum(ordering.compare(a, b))
      val actual = java.lang.Long.signum(
        java.lang.Long.compare(KeyEncoder.doubleCode(a), KeyEncoder.doubleCode(b))
      )
      assert(actual == expected, s"$a vs $b")
    }
  }

  test("float codes follow Spark's float ordering") {
    val ordering = PhysicalDataType.ordering(FloatType)
    val floats = doubles.map(_.toFloat)
    for (a <- floats; b <- floats) {
      val expected = Integer.signum(ordering.compare(a, b))
      val actual = java.lang.Long.signum(
        java.lang.Long.compare(KeyEncoder.floatCode(a), KeyEncoder.floatCode(b))
      )
      assert(actual == expected, s"$a vs $b")
    }
  }
}
