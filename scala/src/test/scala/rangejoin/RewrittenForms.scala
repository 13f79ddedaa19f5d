package rangejoin

import scala.util.Random

import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types._

/**
 * Conditions on one column pair written the ways `rangejoin.condition.JoinConditionAnalysis`
 * rewrites into candidate inequalities (`DifferenceBounds`, `OpenEnds`), for the differential
 * harness. Constants fit [[RandomTables]]' small domains, so that many pairs match.
 */
object RewrittenForms {

  /**
   * A drawn condition: its SQL, how many candidate inequalities it gives, and whether, with
   * ANSI on or off, those form a sliding window (a band whose keys are monotone); `openEnd` for
   * `x op e OR e IS NULL`, whose candidate the keyed rung does not count.
   */
  final case class Form(
      sql: String,
      candidates: Int,
      window: Boolean => Boolean,
      openEnd: Boolean = false
  )

  def supports(dt: DataType): Boolean = dt match {
    case ByteType | ShortType | IntegerType | LongType | FloatType | DoubleType => true
    case DateType | TimestampType => true
    case _ => false
  }

  private val ops = Seq("<", "<=", ">", ">=")

  /** A condition on `l.col` and `r.col` of type `dt`. */
  def draw(dt: DataType, col: String, rnd: Random): Form = {
    val (x, y) = if (rnd.nextBoolean()) (s"l.$col", s"r.$col") else (s"r.$col", s"l.$col")
    val integral = dt match { // the difference is of integers (of seconds for timestamps)
      case FloatType | DoubleType => false
      case _ => true
    }
    // Dates and timestamps: half the time their difference as an interval, against intervals.
    val interval = (dt == DateType || dt == TimestampType) && rnd.nextBoolean()
    // A window needs monotone keys: never for datediff (which wraps), for other integers only
    // with ANSI on (a wrapping difference guards its keys); an interval difference of dates
    // always, of timestamps in a session time zone with one offset (wall-clock keys otherwise).
    val bandWindow: Boolean => Boolean = ansi =>
      dt match {
        case TimestampType if interval =>
          java.time.ZoneId.of(SQLConf.get.sessionLocalTimeZone).getRules.isFixedOffset
        case DateType => interval
        case _ => !integral || ansi
      }
    val difference = dt match {
      case DateType | TimestampType if interval => s"($x - $y)"
      case DateType => s"datediff($x, $y)"
      case TimestampType => s"unix_timestamp($x) - unix_timestamp($y)"
      case _ => s"$x - $y"
    }
    def constant(): String = {
      val n = rnd.nextInt(4)
      dt match {
        case LongType => s"${n * 1000000007L}"
        case FloatType | DoubleType => s"${n * 0.75}"
        // Whole days, or a day and a half (which admits whole days only); seconds, or and a half.
        case DateType if interval =>
          if (rnd.nextBoolean()) s"INTERVAL $n DAYS" else s"INTERVAL '${n * 24 + 12}' HOUR"
        case TimestampType if interval =>
          if (rnd.nextBoolean()) s"INTERVAL $n SECONDS" else s"INTERVAL '$n.5' SECOND"
        case _ => s"$n"
      }
    }
    rnd.nextInt(4) match {
      case 0 =>
        val (lo, hi) = (constant(), constant())
        val negated = if (interval) s"-($lo)" else s"-$lo"
        Form(s"$difference BETWEEN $negated AND $hi", 2, bandWindow)
      case 1 =>
        val op = if (rnd.nextBoolean()) "<" else "<="
        Form(s"abs($difference) $op ${constant()}", 2, bandWindow)
      case 2 =>
        val op = ops(rnd.nextInt(4))
        val sql =
          if (rnd.nextBoolean()) s"$difference $op ${constant()}"
          else s"${constant()} $op $difference"
        Form(sql, 1, _ => false)
      case _ =>
        val op = ops(rnd.nextInt(4))
        val nulled = if (rnd.nextBoolean()) y else x
        val sql =
          if (rnd.nextBoolean()) s"($x $op $y OR $nulled IS NULL)"
          else s"($nulled IS NULL OR $x $op $y)"
        Form(sql, 1, _ => false, openEnd = true)
    }
  }
}
