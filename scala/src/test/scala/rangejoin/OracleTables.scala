package rangejoin

import java.sql.Date

import scala.jdk.CollectionConverters._
import scala.util.Random

import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.types._

/**
 * Duplicate-heavy tables for [[OracleSuite]]: every key column draws from a handful of values, so
 * that most pairs tie on some key and `<` against `<=` decides many of them.
 *
 * Columns: `id` (the row's number, never NULL), `k` (an equality key, one of a few values), and
 * two columns of each type, `i1`/`i2` int (0 to 5), `d1`/`d2` double (halves from 0 to 2.5, and
 * -0.0, 0.0, NaN and both infinities), `s1`/`s2` string (a few short strings, one with a trailing
 * blank and one not ASCII), `t1`/`t2` date (six consecutive days). Every column but `id` is NULL in
 * about `nullPercent`% of the rows.
 */
object OracleTables {

  /** A column type and its two columns; `offset` is a band's half width, where one exists. */
  final case class Typed(name: String, c1: String, c2: String, offset: Option[String])

  val int: Typed = Typed("int", "i1", "i2", Some("1"))
  val double: Typed = Typed("double", "d1", "d2", Some("0.5"))
  val string: Typed = Typed("string", "s1", "s2", None)
  val date: Typed = Typed("date", "t1", "t2", Some("INTERVAL 1 DAY"))

  val schema: StructType = StructType(
    StructField("id", IntegerType, nullable = false) +:
      Seq(
        "k" -> IntegerType,
        "i1" -> IntegerType,
        "i2" -> IntegerType,
        "d1" -> DoubleType,
        "d2" -> DoubleType,
        "s1" -> StringType,
        "s2" -> StringType,
        "t1" -> DateType,
        "t2" -> DateType
      ).map { case (name, dt) => StructField(name, dt) }
  )

  private val specials =
    Seq(-0.0, 0.0, Double.NaN, Double.PositiveInfinity, Double.NegativeInfinity)
  private val strings = Seq("", "a", "a ", "ab", "b", "é")

  private def value(dt: DataType, rnd: Random): Any = dt match {
    case IntegerType => rnd.nextInt(6)
    case DoubleType =>
      if (rnd.nextInt(4) == 0) specials(rnd.nextInt(specials.size)) else rnd.nextInt(6) / 2.0
    case StringType => strings(rnd.nextInt(strings.size))
    case DateType => Date.valueOf(s"2024-01-0${1 + rnd.nextInt(6)}")
    case other => throw new IllegalArgumentException(s"no values for $other")
  }

  /** The rows of a table of `rows` rows; `keys` values of `k`. */
  def rows(rows: Int, seed: Long, keys: Int, nullPercent: Int): Seq[Row] = {
    val rnd = new Random(seed)
    def nullOr(v: => Any): Any = if (rnd.nextInt(100) < nullPercent) null else v
    (0 until rows).map { id =>
      val k = nullOr(rnd.nextInt(keys))
      val values = schema.fields.drop(2).map(f => nullOr(value(f.dataType, rnd)))
      Row.fromSeq(Seq(id, k) ++ values)
    }
  }

  /**
   * Registers view `view` of `rows` rows drawn from `seed`. `fromFiles` writes the rows to Parquet
   * and reads them back, so that block joins read the scan's column batches.
   */
  def register(
      spark: SparkSession,
      view: String,
      rows: Int,
      seed: Long,
      keys: Int = 3,
      nullPercent: Int = 12,
      fromFiles: Boolean = false
  ): Unit = {
    val df = spark.createDataFrame(this.rows(rows, seed, keys, nullPercent).asJava, schema)
    if (!fromFiles) df.createOrReplaceTempView(view)
    else {
      val dir = java.nio.file.Files.createTempDirectory(s"rangejoin-oracle-$view").toString
      df.write.mode("overwrite").parquet(dir)
      spark.read.parquet(dir).createOrReplaceTempView(view)
    }
  }
}
