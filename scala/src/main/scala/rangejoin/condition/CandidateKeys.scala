package rangejoin.condition

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Expression, UnaryExpression}
import org.apache.spark.sql.catalyst.expressions.codegen.{CodegenContext, ExprCode}
import org.apache.spark.sql.catalyst.expressions.codegen.Block._
import org.apache.spark.sql.catalyst.expressions.codegen.{CodeGenerator, FalseLiteral}
import org.apache.spark.sql.types._

/**
 * Sort keys of candidate inequalities: inequalities that a rewritten conjunct implies (see
 * [[DifferenceBounds]] and [[OpenEnds]]). A candidate only narrows the pairs the operator looks
 * at; the conjunct it came from stays in the condition and decides. So a candidate key must never
 * exclude a pair the conjunct accepts, and it need not be tight.
 *
 * A key is ''monotone'' when it is a non-decreasing function of its child in Spark's ordering;
 * [[SlidingWindow]] may then treat it as its child plus a constant.
 */
sealed trait CandidateKey extends UnaryExpression {
  def monotone: Boolean
}

/**
 * `child + offset` over an integral value (byte, short, int, long, a date's days or a timestamp's
 * microseconds) widened to long, saturating at the long range instead of wrapping, so that the
 * key is exact where the sum fits and still on the right side of every long where it does not.
 *
 * With a `guard`, a child of magnitude `guard.threshold` or more gives `guard.extreme` instead
 * (`Long.MinValue` or `Long.MaxValue`), so that the row meets every row of the other side. That
 * covers the pairs whose difference wraps around in Spark's arithmetic (see
 * [[DifferenceBounds]]); such a key is not monotone.
 */
final case class IntegralOffsetKey(child: Expression, offset: Long, guard: Option[WrapGuard])
    extends CandidateKey {

  require(IntegralOffsetKey.supports(child.dataType), s"not integral: ${child.dataType}")

  override def dataType: DataType = LongType
  override def monotone: Boolean = guard.isEmpty

  override protected def nullSafeEval(input: Any): Any = {
    val v = input.asInstanceOf[Number].longValue // a byte, short, int (or date) or long
    guard match {
      case Some(g) if v >= g.threshold || v <= -g.threshold => g.extreme
      case _ => IntegralOffsetKey.saturatingAdd(v, offset)
    }
  }

  override protected def doGenCode(ctx: CodegenContext, ev: ExprCode): ExprCode =
    nullSafeCodeGen(
      ctx,
      ev,
      c => {
        val v = ctx.freshName("v")
        val add = s"${ev.value} = ${classOf[IntegralOffsetKey].getName}.saturatingAdd($v, " +
          s"${javaLong(offset)});"
        val body = guard.fold(add) { g =>
          val t = javaLong(g.threshold)
          s"""if ($v >= $t || $v <= -$t) {
             |  ${ev.value} = ${javaLong(g.extreme)};
             |} else {
             |  $add
             |}""".stripMargin
        }
        s"long $v = (long) $c;\n$body"
      }
    )

  private def javaLong(v: Long): String = v match {
    case Long.MinValue => "Long.MIN_VALUE"
    case Long.MaxValue => "Long.MAX_VALUE"
    case _ => s"${v}L"
  }

  override def sql: String = {
    val sum = if (offset == 0) child.sql else s"${child.sql} + $offset"
    guard.fold(s"($sum)")(g => s"wrap_guard($sum, |${child.sql}| >= ${g.threshold})")
  }
  override def toString: String = sql

  override protected def withNewChildInternal(newChild: Expression): IntegralOffsetKey =
    copy(child = newChild)
}

/**
 * What [[IntegralOffsetKey]] gives for a child of magnitude `threshold` or more: `extreme`,
 * `Long.MinValue` or `Long.MaxValue`.
 */
final case class WrapGuard(threshold: Long, extreme: Long)

object IntegralOffsetKey {

  def supports(dt: DataType): Boolean = dt match {
    case ByteType | ShortType | IntegerType | LongType | DateType => true
    case TimestampType | TimestampNTZType => true // microseconds
    case _ => false
  }

  def saturatingAdd(a: Long, b: Long): Long = {
    val sum = a + b
    if (((a ^ sum) & (b ^ sum)) < 0) { if (b > 0) Long.MaxValue else Long.MinValue }
    else sum
  }
}

/**
 * `child + offset` over a float or double, rounded outwards: with `roundUp` the key is at least
 * the exact sum (`Math.nextUp` of the rounded sum), otherwise at most it (`Math.nextDown`), so
 * that rounding never moves a pair out of its candidate range. `offset` is itself the bound
 * moved one step outwards (see [[DifferenceBounds]]).
 *
 * NaN gives NaN, the largest value in Spark's ordering, or with `nanAsMinimum` negative
 * infinity, for a lower bound that must admit every row opposite a NaN (`NaN - x >= c` holds in
 * Spark, since NaN is greater than every number); such a key is not monotone.
 */
final case class FloatingOffsetKey(
    child: Expression,
    offset: Double,
    roundUp: Boolean,
    nanAsMinimum: Boolean
) extends CandidateKey {

  require(child.dataType == DoubleType || child.dataType == FloatType, child.dataType)

  override def dataType: DataType = child.dataType
  override def monotone: Boolean = !nanAsMinimum

  override protected def nullSafeEval(input: Any): Any =
    if (dataType == DoubleType) {
      val d = input.asInstanceOf[Double]
      if (d.isNaN) { if (nanAsMinimum) Double.NegativeInfinity else d }
      else if (roundUp) Math.nextUp(d + offset)
      else Math.nextDown(d + offset)
    } else {
      val f = input.asInstanceOf[Float]
      if (f.isNaN) { if (nanAsMinimum) Float.NegativeInfinity else f }
      else if (roundUp) Math.nextUp(f + offset.toFloat)
      else Math.nextDown(f + offset.toFloat)
    }

  override protected def doGenCode(ctx: CodegenContext, ev: ExprCode): ExprCode = {
    val (javaType, o, negInf) =
      if (dataType == DoubleType) {
        val bits = java.lang.Double.doubleToRawLongBits(offset)
        ("double", s"Double.longBitsToDouble(${bits}L)", "Double.NEGATIVE_INFINITY")
      } else {
        val bits = java.lang.Float.floatToRawIntBits(offset.toFloat)
        ("float", s"Float.intBitsToFloat($bits)", "Float.NEGATIVE_INFINITY")
      }
    val step = if (roundUp) "nextUp" else "nextDown"
    nullSafeCodeGen(
      ctx,
      ev,
      c => {
        val v = ctx.freshName("v")
        val onNaN = if (nanAsMinimum) negInf else v
        s"""$javaType $v = $c;
           |${ev.value} = $v != $v ? $onNaN : ($javaType) Math.$step($v + $o);""".stripMargin
      }
    )
  }

  override def sql: String =
    s"${if (roundUp) "round_up" else "round_down"}(${child.sql} + $offset)"
  override def toString: String = sql

  override protected def withNewChildInternal(newChild: Expression): FloatingOffsetKey =
    copy(child = newChild)
}

/**
 * A timestamp's wall-clock time in `zone` as microseconds since 1970-01-01 00:00 (the instant's
 * microseconds plus the zone's offset at that instant), saturating at the long range: the
 * microseconds Spark subtracts for `ts1 - ts2` (see [[DifferenceBounds]]). Not monotone: where
 * clocks go back, later instants have earlier wall-clock times.
 */
final case class LocalMicrosKey(child: Expression, zone: java.time.ZoneId) extends CandidateKey {

  require(child.dataType == TimestampType, child.dataType)

  override def dataType: DataType = LongType
  override def monotone: Boolean = false

  override protected def nullSafeEval(input: Any): Any =
    LocalMicrosKey.localMicros(input.asInstanceOf[Long], zone)

  override protected def doGenCode(ctx: CodegenContext, ev: ExprCode): ExprCode = {
    val zoneRef = ctx.addReferenceObj("zone", zone, classOf[java.time.ZoneId].getName)
    defineCodeGen(ctx, ev, c => s"${classOf[LocalMicrosKey].getName}.localMicros($c, $zoneRef)")
  }

  override def sql: String = s"local_micros(${child.sql}, '$zone')"
  override def toString: String = sql

  override protected def withNewChildInternal(newChild: Expression): LocalMicrosKey =
    copy(child = newChild)
}

object LocalMicrosKey {

  def localMicros(micros: Long, zone: java.time.ZoneId): Long = {
    val instant = java.time.Instant.ofEpochSecond(
      Math.floorDiv(micros, 1000000L),
      Math.floorMod(micros, 1000000L) * 1000
    )
    val offsetSeconds = zone.getRules.getOffset(instant).getTotalSeconds
    IntegralOffsetKey.saturatingAdd(micros, offsetSeconds * 1000000L)
  }
}

/**
 * `child`, or for NULL the largest value of its type in Spark's ordering (`high`) or the
 * smallest: an open end as an unbounded key. For `x < e OR e IS NULL` the key of `e` is
 * `NullAsBoundKey(e, high = true)`, which every `x` is at most. Never NULL. Not monotone, since
 * Spark orders NULL first.
 */
final case class NullAsBoundKey(child: Expression, high: Boolean) extends CandidateKey {

  require(NullAsBoundKey.supports(child.dataType), s"no extreme value for ${child.dataType}")

  override def dataType: DataType = child.dataType
  override def nullable: Boolean = false
  override def monotone: Boolean = false

  private def extreme: Any = (child.dataType, high) match {
    case (ByteType, h) => if (h) Byte.MaxValue else Byte.MinValue
    case (ShortType, h) => if (h) Short.MaxValue else Short.MinValue
    case (IntegerType | DateType, h) => if (h) Int.MaxValue else Int.MinValue
    case (LongType | TimestampType | TimestampNTZType, h) => if (h) Long.MaxValue else Long.MinValue
    case (FloatType, h) => if (h) Float.NaN else Float.NegativeInfinity
    case (DoubleType, h) => if (h) Double.NaN else Double.NegativeInfinity
    case (other, _) => throw new IllegalStateException(s"no extreme value for $other")
  }

  override def eval(input: InternalRow): Any = {
    val v = child.eval(input)
    if (v == null) extreme else v
  }

  override protected def doGenCode(ctx: CodegenContext, ev: ExprCode): ExprCode = {
    val c = child.genCode(ctx)
    val javaType = CodeGenerator.javaType(dataType)
    val literal = extreme match {
      case f: Float if f.isNaN => "Float.NaN"
      case d: Double if d.isNaN => "Double.NaN"
      case f: Float => if (f < 0) "Float.NEGATIVE_INFINITY" else f.toString
      case d: Double => if (d < 0) "Double.NEGATIVE_INFINITY" else d.toString
      case l: Long => if (l < 0) "Long.MIN_VALUE" else "Long.MAX_VALUE"
      case other => s"($javaType) ${other.toString}"
    }
    ev.copy(
      code = code"""${c.code}
                   |$javaType ${ev.value} = ${c.isNull} ? $literal : ${c.value};""".stripMargin,
      isNull = FalseLiteral
    )
  }

  override def sql: String = s"nvl(${child.sql}, ${if (high) "+inf" else "-inf"})"
  override def toString: String = sql

  override protected def withNewChildInternal(newChild: Expression): NullAsBoundKey =
    copy(child = newChild)
}

object NullAsBoundKey {
  def supports(dt: DataType): Boolean = dt match {
    case ByteType | ShortType | IntegerType | LongType | DateType => true
    case TimestampType | TimestampNTZType | FloatType | DoubleType => true
    case _ => false
  }
}
