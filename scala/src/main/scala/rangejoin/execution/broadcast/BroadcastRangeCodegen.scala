package rangejoin.execution.broadcast

import org.apache.spark.sql.catalyst.expressions.{BindReferences, Expression}
import org.apache.spark.sql.catalyst.expressions.codegen.{CodegenContext, ExprCode}
import org.apache.spark.sql.types._

import rangejoin.execution.runtime.StreamProbeCodegen

/**
 * Whole-stage code generation for a broadcast range join ([[StreamProbeCodegen]]): the probe of
 * [[BroadcastRangeProbe]] as Java code inside the streamed input's row loop.
 *
 * State, in fields of the generated class, made once per task when it is initialized: the
 * task's [[BroadcastRangeIndex]], built from a [[BroadcastRangeIndexSource]] among the code's
 * references (which holds the broadcast), and one [[rangejoin.local.SortedRangeIndex]] cursor.
 * The probe of a streamed row:
 * {{{
 *   <evaluate the streamed keys of the indexed inequalities>
 *   keyIsNull = some key is NULL (or a decimal does not fit its type, as a projection finds);
 *   sx, sy = their order-preserving codes             // BroadcastRangeCodegen.keyCode
 *   usable: !keyIsNull;  start: cursor.probe(sx, sy);  next: cursor.next();
 *   row: index.row(cursor.row())                      // one row object, pointed at each match
 * }}}
 * The keys, their codes and NULL handling are those of the interpreted probe, so both paths
 * give the same rows: a NULL key matches nothing, codes follow Spark's order (NaN largest,
 * -0.0 = 0.0), ties follow the index's `<` / `<=`. `condition` holds the inequalities the index
 * does not check, and the residual.
 */
trait BroadcastRangeCodegen extends StreamProbeCodegen {

  /** The streamed input's sides of the indexed (leading) inequalities, not bound. */
  protected def streamedIndexKeys: Seq[Expression]

  /** How each task builds its index; broadcasts the build input. */
  protected def indexSource(): BroadcastRangeIndexSource

  override def supportCodegen: Boolean =
    streamedIndexKeys.forall(k => BroadcastRangeCodegen.keyCode(k.dataType, "v").isDefined)

  override protected def probeCode(ctx: CodegenContext, input: Seq[ExprCode])
      : StreamProbeCodegen.Probe = {
    val index = taskState(ctx, indexSource(), classOf[BroadcastRangeIndex], "rangeIndex")(source =>
      s"$source.build()"
    )
    val cursor = ctx.addMutableState(
      BroadcastRangeCodegen.CursorClass,
      "rangeCursor",
      v => s"$v = $index.index().cursor();",
      forceInline = true
    )
    ctx.currentVars = input
    val keys = streamedIndexKeys.map(BindReferences.bindReference(_, streamedPlan.output))
    val evs = keys.map(_.genCode(ctx))
    val codes = keys.zip(evs).map { case (k, ev) =>
      BroadcastRangeCodegen
        .keyCode(k.dataType, ev.value.toString)
        .getOrElse(throw new IllegalStateException(s"${k.dataType} has no key code"))
    }
    val usable = evs.zip(codes).map { case (ev, c) => s"!${ev.isNull} && ${c.valid}" }
    val keyIsNull = ctx.freshName("keyIsNull")
    val sx = ctx.freshName("sx")
    val sy = ctx.freshName("sy")
    val code =
      s"""
         |${evs.map(_.code).mkString("\n")}
         |boolean $keyIsNull = true;
         |long $sx = 0L;
         |long $sy = 0L;
         |if (${usable.mkString(" && ")}) {
         |  $keyIsNull = false;
         |  $sx = ${codes.head.code};
         |  ${codes.lift(1).map(c => s"$sy = ${c.code};").getOrElse("")}
         |}
       """.stripMargin
    StreamProbeCodegen.Probe(
      code,
      usable = s"!$keyIsNull",
      start = s"$cursor.probe($sx, $sy);",
      next = s"$cursor.next()",
      row = s"$index.row($cursor.row())"
    )
  }
}

object BroadcastRangeCodegen {

  /** The Java name of the index cursor's class. */
  private val CursorClass = "rangejoin.local.SortedRangeIndex.Cursor"

  /**
   * Java code for the order-preserving code of a non-NULL key value.
   *
   * @param valid a boolean expression, false when the value does not fit its type: a decimal
   *              that `changePrecision` cannot bring to the type's precision and scale, which a
   *              projection writes as NULL (the interpreted probe projects its keys)
   * @param code a `long` expression, the code of [[rangejoin.execution.blocks.LongKeyEncoder]]
   *             for the type; evaluated after `valid`
   */
  final case class KeyCode(valid: String, code: String)

  private val Encoder = "rangejoin.execution.blocks.KeyEncoder"

  /**
   * The Java code of the code that [[rangejoin.execution.blocks.KeyEncoder.forType]] gives keys
   * of `dataType`, for the Java variable `value` of the type's Java type; None for a type
   * without a fixed-width code.
   */
  def keyCode(dataType: DataType, value: String): Option[KeyCode] = {
    def always(code: String) = Some(KeyCode("true", code))
    dataType match {
      case BooleanType => always(s"($value ? 1L : 0L)")
      case ByteType | ShortType | IntegerType | DateType | _: YearMonthIntervalType =>
        always(s"((long) $value)")
      case LongType | TimestampType | TimestampNTZType | _: DayTimeIntervalType => always(value)
      case FloatType => always(s"$Encoder.floatCode($value)")
      case DoubleType => always(s"$Encoder.doubleCode($value)")
      case d: DecimalType if d.precision <= Decimal.MAX_LONG_DIGITS =>
        Some(KeyCode(
          s"$value.changePrecision(${d.precision}, ${d.scale})",
          s"$value.toUnscaledLong()"
        ))
      case _ => None
    }
  }
}
