package rangejoin.execution.broadcast

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{BindReferences, Expression}
import org.apache.spark.sql.catalyst.expressions.codegen.{CodegenContext, ExprCode, JavaCode}
import org.apache.spark.sql.execution.{CodegenSupport, SparkPlan}
import org.apache.spark.sql.execution.joins.JoinCodegenSupport
import org.apache.spark.sql.types._

import rangejoin.execution.runtime.StreamEmit

/**
 * Whole-stage code generation for a broadcast range join: the probe of
 * [[BroadcastRangeProbe]] as Java code inside the streamed input's row loop, so that the
 * streamed rows, the index probe, the condition and the operators above the join (projection,
 * filter, partial aggregate) run as one generated loop and no row is built per pair.
 *
 * State, in fields of the generated class, made once per task when it is initialized: the
 * task's [[BroadcastRangeIndex]], built from a [[BroadcastRangeIndexSource]] among the code's
 * references (which holds the broadcast), and one [[rangejoin.local.SortedRangeIndex]] cursor.
 * Per streamed row:
 * {{{
 *   <evaluate the streamed keys of the indexed inequalities>
 *   keyIsNull = some key is NULL (or a decimal does not fit its type, as a projection finds);
 *   sx, sy = their order-preserving codes             // BroadcastRangeCodegen.keyCode
 *   if (!keyIsNull) {
 *     cursor.probe(sx, sy);
 *     while (cursor.next()) {
 *       InternalRow b = index.row(cursor.row());   // one row object, pointed at each match
 *       <read b's columns, check the further inequalities and the residual>
 *       <inner: count and consume the pair (streamed and build columns as variables)>
 *     }
 *   }
 * }}}
 * The other join types change the loop as Spark's hash joins do: an outer join runs one more
 * turn with no build row (NULL columns) when no pair passed; semi, anti and existence joins stop
 * at the first pair that passes and then consume the streamed row (anti: if none did;
 * existence: always, with the flag).
 *
 * Invariants:
 *  - the probe of one streamed row runs to its end within that row's code (no `return` in the
 *    loop), so the cursor carries nothing from one streamed row to the next;
 *  - each join type has one consume site per streamed row, inside the loop for pairs, after it
 *    for the others; a consumer's `continue` (a filter above) moves to the next pair, or to the
 *    next streamed row when it is after the loop, with the outer join's `found` already set;
 *  - the keys, their codes, NULL handling and the condition are those of the interpreted probe,
 *    so both paths give the same rows: a NULL key matches nothing, codes follow Spark's order
 *    (NaN largest, -0.0 = 0.0), ties follow the index's `<` / `<=`.
 *
 * The node provides the inputs, the streamed keys, how to build the index and `condition` (the
 * inequalities the index does not check, and the residual), which Spark's
 * [[org.apache.spark.sql.execution.joins.JoinCodegenSupport]] generates against the build row.
 */
trait BroadcastRangeCodegen extends JoinCodegenSupport {

  /** The input whose rows probe the index. */
  protected def streamedPlan: SparkPlan

  /** The broadcast input. */
  protected def buildPlan: SparkPlan

  protected def streamIsLeft: Boolean

  /** The streamed input's sides of the indexed (leading) inequalities, not bound. */
  protected def streamedIndexKeys: Seq[Expression]

  /** How each task builds its index; broadcasts the build input. */
  protected def indexSource(): BroadcastRangeIndexSource

  /** What the join outputs for a streamed row. */
  protected def streamEmit: StreamEmit

  /** The key of the output-rows metric. */
  protected def numOutputRowsKey: String

  override def supportCodegen: Boolean =
    streamedIndexKeys.forall(k => BroadcastRangeCodegen.keyCode(k.dataType, "v").isDefined)

  override def inputRDDs(): Seq[RDD[InternalRow]] =
    streamedPlan.asInstanceOf[CodegenSupport].inputRDDs()

  // A streamed row gives several output rows when the join outputs pairs.
  override def needCopyResult: Boolean =
    streamEmit.pairs || streamedPlan.asInstanceOf[CodegenSupport].needCopyResult

  override def doProduce(ctx: CodegenContext): String =
    streamedPlan.asInstanceOf[CodegenSupport].produce(ctx, this)

  override def doConsume(ctx: CodegenContext, input: Seq[ExprCode], row: ExprCode): String = {
    val index = prepareIndex(ctx)
    val key = streamKeyCodes(ctx, input)
    val loop = streamEmit match {
      case StreamEmit.Pairs => pairs(ctx, input, index, key)
      case StreamEmit.PairsAndUnmatched => pairsAndUnmatched(ctx, input, index, key)
      case StreamEmit.Matched => streamRow(ctx, input, index, key, output = found => found)
      case StreamEmit.Unmatched => streamRow(ctx, input, index, key, output = found => s"!$found")
      case StreamEmit.Existence => existence(ctx, input, index, key)
    }
    s"""
       |// ${this.getClass.getSimpleName}: the streamed row's key codes, then its probe
       |${key.code}
       |$loop
     """.stripMargin
  }

  /** The names of a task's index state in the generated class. */
  private case class IndexTerms(index: String, cursor: String) {

    /** The indexed row the cursor is on. */
    def row: String = s"$index.row($cursor.row())"
  }

  /** The streamed row's key codes: `code` declares `keyIsNull`, `sx` and `sy`. */
  private case class KeyTerms(code: String, keyIsNull: String, sx: String, sy: String)

  private def prepareIndex(ctx: CodegenContext): IndexTerms = {
    val source = ctx.addReferenceObj("rangeIndexSource", indexSource())
    // Inlined: a stage holds few joins.
    val index = ctx.addMutableState(
      classOf[BroadcastRangeIndex].getName,
      "rangeIndex",
      v => s"$v = $source.build();",
      forceInline = true
    )
    val cursor = ctx.addMutableState(
      BroadcastRangeCodegen.CursorClass,
      "rangeCursor",
      v => s"$v = $index.index().cursor();",
      forceInline = true
    )
    IndexTerms(index, cursor)
  }

  private def streamKeyCodes(ctx: CodegenContext, input: Seq[ExprCode]): KeyTerms = {
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
    KeyTerms(code, keyIsNull, sx, sy)
  }

  private def joined(streamVars: Seq[ExprCode], buildVars: Seq[ExprCode]): Seq[ExprCode] =
    if (streamIsLeft) streamVars ++ buildVars else buildVars ++ streamVars

  /** Inner joins: each pair that passes the condition. */
  private def pairs(
      ctx: CodegenContext,
      input: Seq[ExprCode],
      index: IndexTerms,
      key: KeyTerms
  ): String = {
    val (buildRow, checkCondition, buildVars) =
      getJoinCondition(ctx, input, streamedPlan, buildPlan)
    val numOutput = metricTerm(ctx, numOutputRowsKey)
    s"""
       |if (!${key.keyIsNull}) {
       |  ${index.cursor}.probe(${key.sx}, ${key.sy});
       |  while (${index.cursor}.next()) {
       |    InternalRow $buildRow = ${index.row};
       |    $checkCondition {
       |      $numOutput.add(1);
       |      ${consume(ctx, joined(input, buildVars))}
       |    }
       |  }
       |}
     """.stripMargin
  }

  /**
   * Outer joins: each pair that passes the condition, then, if none did, one more turn with no
   * build row, whose columns are NULL. `found` is set before the consumer runs, so its
   * `continue` cannot bring that turn about.
   */
  private def pairsAndUnmatched(
      ctx: CodegenContext,
      input: Seq[ExprCode],
      index: IndexTerms,
      key: KeyTerms
  ): String = {
    val (buildRow, checkCondition, _) = getJoinCondition(ctx, input, streamedPlan, buildPlan)
    val buildVars = genOneSideJoinVars(ctx, buildRow, buildPlan, setDefaultValue = true)
    val numOutput = metricTerm(ctx, numOutputRowsKey)
    val found = ctx.freshName("found")
    val more = ctx.freshName("more")
    val passed = ctx.freshName("passed")
    s"""
       |boolean $found = false;
       |boolean $more = !${key.keyIsNull};
       |if ($more) {
       |  ${index.cursor}.probe(${key.sx}, ${key.sy});
       |}
       |while ($more || !$found) {
       |  $more = $more && ${index.cursor}.next();
       |  if (!$more && $found) break;
       |  InternalRow $buildRow = $more ? ${index.row} : null;
       |  boolean $passed = $buildRow == null;
       |  if (!$passed) {
       |    $checkCondition {
       |      $passed = true;
       |    }
       |  }
       |  if ($passed) {
       |    $found = true;
       |    $numOutput.add(1);
       |    ${consume(ctx, joined(input, buildVars))}
       |  }
       |}
     """.stripMargin
  }

  /** The probe up to the first pair that passes the condition; declares `found`. */
  private def firstMatch(
      ctx: CodegenContext,
      input: Seq[ExprCode],
      index: IndexTerms,
      key: KeyTerms,
      found: String
  ): String = {
    val (buildRow, checkCondition, _) = getJoinCondition(ctx, input, streamedPlan, buildPlan)
    s"""
       |boolean $found = false;
       |if (!${key.keyIsNull}) {
       |  ${index.cursor}.probe(${key.sx}, ${key.sy});
       |  while (!$found && ${index.cursor}.next()) {
       |    InternalRow $buildRow = ${index.row};
       |    $checkCondition {
       |      $found = true;
       |    }
       |  }
       |}
     """.stripMargin
  }

  /** Semi and anti joins: the streamed row, when `output(found)` holds. */
  private def streamRow(
      ctx: CodegenContext,
      input: Seq[ExprCode],
      index: IndexTerms,
      key: KeyTerms,
      output: String => String
  ): String = {
    val found = ctx.freshName("found")
    val probe = firstMatch(ctx, input, index, key, found)
    val numOutput = metricTerm(ctx, numOutputRowsKey)
    s"""
       |$probe
       |if (${output(found)}) {
       |  $numOutput.add(1);
       |  ${consume(ctx, input)}
       |}
     """.stripMargin
  }

  /** Existence joins: every streamed row, with whether it matched. */
  private def existence(
      ctx: CodegenContext,
      input: Seq[ExprCode],
      index: IndexTerms,
      key: KeyTerms
  ): String = {
    val found = ctx.freshName("exists")
    val probe = firstMatch(ctx, input, index, key, found)
    val numOutput = metricTerm(ctx, numOutputRowsKey)
    val flag = ExprCode.forNonNullValue(JavaCode.variable(found, BooleanType))
    s"""
       |$probe
       |$numOutput.add(1);
       |${consume(ctx, input :+ flag)}
     """.stripMargin
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
