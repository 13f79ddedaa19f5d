package rangejoin

import java.math.{BigDecimal => JBigDecimal}
import java.sql.{Date, Timestamp}
import java.time.LocalDateTime

import scala.jdk.CollectionConverters._
import scala.util.Random

import org.apache.spark.sql.{DataFrame, Row, SparkSession}
import org.apache.spark.sql.types._

/**
 * Random tables for differential tests: columns `id`, `a`, `b`, `c` of one type, drawn from a
 * small domain so that duplicates are common, with NULLs, and NaN, infinities and -0.0 for
 * floating types.
 */
object RandomTables {

  val types: Seq[DataType] = Seq(
    IntegerType,
    LongType,
    ShortType,
    ByteType,
    DoubleType,
    FloatType,
    DecimalType(10, 2),
    DecimalType(30, 5),
    DateType,
    TimestampType,
    TimestampNTZType,
    StringType,
    BooleanType
  )

  def value(dt: DataType, rnd: Random): Any = {
    val k = rnd.nextInt(12) - 6
    dt match {
      case IntegerType => k
      case LongType => k.toLong * 1000000007L
      case ShortType => k.toShort
      case ByteType => k.toByte
      case DoubleType => special(rnd).getOrElse(k / 2.0)
      case FloatType => special(rnd).map(_.toFloat).getOrElse(k / 2.0f)
      case d: DecimalType => new JBigDecimal(k * 1.25).setScale(d.scale)
      case DateType => Date.valueOf(s"2024-01-${10 + k}")
      case TimestampType => Timestamp.valueOf(s"2024-01-10 10:00:${10 + k}")
      case TimestampNTZType => LocalDateTime.of(2024, 1, 10, 10, 0, 10 + k)
      case StringType => Seq("", "a", "ab", "b", "B", "ba", "é", "z", "zz", "Ω", "a ", "0")(k + 6)
      case BooleanType => k > 0
      case other => throw new IllegalArgumentException(s"no generator for $other")
    }
  }

  private def special(rnd: Random): Option[Double] =
    if (rnd.nextInt(5) > 0) None
    else
      Some(Seq(
        Double.NaN,
        -0.0,
        0.0,
        Double.PositiveInfinity,
        Double.NegativeInfinity
      )(rnd.nextInt(5)))

  /** A table of `rows` rows of type `dt` with about `nullPercent`% NULLs in each key column. */
  def table(
      spark: SparkSession,
      dt: DataType,
      rows: Int,
      seed: Long,
      nullPercent: Int = 10
  ): DataFrame = {
    val rnd = new Random(seed)
    val schema = StructType(
      StructField("id", IntegerType, nullable = false) +: Seq("a", "b", "c").map(
        StructField(_, dt)
      )
    )
    val data = (0 until rows).map { id =>
      Row.fromSeq(id +: Seq.fill(3)(if (rnd.nextInt(100) < nullPercent) null else value(dt, rnd)))
    }
    spark.createDataFrame(data.asJava, schema)
  }
}
