package rangejoin.execution.runtime

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.codegen.{CodegenContext, ExprCode, JavaCode}
import org.apache.spark.sql.execution.{CodegenSupport, SparkPlan}
import org.apache.spark.sql.execution.joins.JoinCodegenSupport
import org.apache.spark.sql.types.BooleanType

/**
 * Whole-stage code generation for a join whose streamed rows each probe an index of the other
 * input, built once per task from a broadcast: the probe as Java code inside the streamed input's
 * row loop, so that the streamed rows, the probe, the condition and the operators above the join
 * (projection, filter, partial aggregate) run as one generated loop and no row is built per pair.
 *
 * The node gives the probe ([[StreamProbeCodegen.Probe]]): code that reads the streamed row's
 * keys, whether they can match at all (no NULL key), a statement that starts the walk over the
 * row's candidates, and a cursor over them. Per streamed row:
 * {{{
 *   <the probe's code: evaluate the streamed keys>
 *   if (<usable>) {
 *     <start>;
 *     while (<next>) {
 *       InternalRow b = <row>;             // the candidate's build row
 *       <read b's columns, check `condition`>
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
 *  - the probe finds the candidates the node's interpreted probe finds, so both paths give the
 *    same rows; `condition`, which Spark's [[JoinCodegenSupport]] generates against the build
 *    row, is checked on each.
 */
trait StreamProbeCodegen extends JoinCodegenSupport {

  /** The input whose rows probe the index. */
  protected def streamedPlan: SparkPlan

  /** The broadcast input. */
  protected def buildPlan: SparkPlan

  protected def streamIsLeft: Boolean

  /** What the join outputs for a streamed row. */
  protected def streamEmit: StreamEmit

  /** The key of the output-rows metric. */
  protected def numOutputRowsKey: String

  /** The probe of one streamed row whose columns are `input`; may add state to `ctx`. */
  protected def probeCode(ctx: CodegenContext, input: Seq[ExprCode]): StreamProbeCodegen.Probe

  /**
   * A field of the generated class, inlined (a stage holds few joins), that each task sets once
   * from `source`, an object the generated code holds: `init` gives its value from the source's
   * reference. The field's name.
   */
  protected final def taskState(
      ctx: CodegenContext,
      source: AnyRef,
      stateClass: Class[_],
      name: String
  )(init: String => String): String = {
    val reference = ctx.addReferenceObj(s"${name}Source", source)
    ctx.addMutableState(
      stateClass.getName,
      name,
      v => s"$v = ${init(reference)};",
      forceInline = true
    )
  }

  /**
   * The columns the node writes, given the variables of every column its join type outputs
   * (both inputs' for pairs, the streamed input's for semi and anti joins, and the flag after
   * them for existence joins), in that order.
   */
  protected def written(all: Seq[ExprCode]): Seq[ExprCode] = all

  override def inputRDDs(): Seq[RDD[InternalRow]] =
    streamedPlan.asInstanceOf[CodegenSupport].inputRDDs()

  // A streamed row gives several output rows when the join outputs pairs.
  override def needCopyResult: Boolean =
    streamEmit.pairs || streamedPlan.asInstanceOf[CodegenSupport].needCopyResult

  override def doProduce(ctx: CodegenContext): String =
    streamedPlan.asInstanceOf[CodegenSupport].produce(ctx, this)

  override def doConsume(ctx: CodegenContext, input: Seq[ExprCode], row: ExprCode): String = {
    val probe = probeCode(ctx, input)
    val loop = streamEmit match {
      case StreamEmit.Pairs => pairs(ctx, input, probe)
      case StreamEmit.PairsAndUnmatched => pairsAndUnmatched(ctx, input, probe)
      case StreamEmit.Matched => streamRow(ctx, input, probe, output = found => found)
      case StreamEmit.Unmatched => streamRow(ctx, input, probe, output = found => s"!$found")
      case StreamEmit.Existence => existence(ctx, input, probe)
    }
    s"""
       |// ${this.getClass.getSimpleName}: the streamed row's keys, then its probe
       |${probe.code}
       |$loop
     """.stripMargin
  }

  private def joined(streamVars: Seq[ExprCode], buildVars: Seq[ExprCode]): Seq[ExprCode] =
    written(if (streamIsLeft) streamVars ++ buildVars else buildVars ++ streamVars)

  /** Inner joins: each pair that passes the condition. */
  private def pairs(ctx: CodegenContext, input: Seq[ExprCode], probe: StreamProbeCodegen.Probe)
      : String = {
    val (buildRow, checkCondition, buildVars) =
      getJoinCondition(ctx, input, streamedPlan, buildPlan)
    val numOutput = metricTerm(ctx, numOutputRowsKey)
    s"""
       |if (${probe.usable}) {
       |  ${probe.start}
       |  while (${probe.next}) {
       |    InternalRow $buildRow = ${probe.row};
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
      probe: StreamProbeCodegen.Probe
  ): String = {
    val (buildRow, checkCondition, _) = getJoinCondition(ctx, input, streamedPlan, buildPlan)
    val buildVars = genOneSideJoinVars(ctx, buildRow, buildPlan, setDefaultValue = true)
    val numOutput = metricTerm(ctx, numOutputRowsKey)
    val found = ctx.freshName("found")
    val more = ctx.freshName("more")
    val passed = ctx.freshName("passed")
    s"""
       |boolean $found = false;
       |boolean $more = ${probe.usable};
       |if ($more) {
       |  ${probe.start}
       |}
       |while ($more || !$found) {
       |  $more = $more && ${probe.next};
       |  if (!$more && $found) break;
       |  InternalRow $buildRow = $more ? ${probe.row} : null;
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
      probe: StreamProbeCodegen.Probe,
      found: String
  ): String = {
    val (buildRow, checkCondition, _) = getJoinCondition(ctx, input, streamedPlan, buildPlan)
    s"""
       |boolean $found = false;
       |if (${probe.usable}) {
       |  ${probe.start}
       |  while (!$found && ${probe.next}) {
       |    InternalRow $buildRow = ${probe.row};
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
      probe: StreamProbeCodegen.Probe,
      output: String => String
  ): String = {
    val found = ctx.freshName("found")
    val walk = firstMatch(ctx, input, probe, found)
    val numOutput = metricTerm(ctx, numOutputRowsKey)
    s"""
       |$walk
       |if (${output(found)}) {
       |  $numOutput.add(1);
       |  ${consume(ctx, written(input))}
       |}
     """.stripMargin
  }

  /** Existence joins: every streamed row, with whether it matched. */
  private def existence(
      ctx: CodegenContext,
      input: Seq[ExprCode],
      probe: StreamProbeCodegen.Probe
  ): String = {
    val found = ctx.freshName("exists")
    val walk = firstMatch(ctx, input, probe, found)
    val numOutput = metricTerm(ctx, numOutputRowsKey)
    val flag = ExprCode.forNonNullValue(JavaCode.variable(found, BooleanType))
    s"""
       |$walk
       |$numOutput.add(1);
       |${consume(ctx, written(input :+ flag))}
     """.stripMargin
  }
}

object StreamProbeCodegen {

  /**
   * The probe of one streamed row, in Java.
   *
   * @param code statements that read the streamed row's keys, run once per row
   * @param usable a boolean expression, false when the row matches nothing (a NULL key)
   * @param start a statement that starts the walk over the row's candidates, run when `usable`
   * @param next a boolean expression that moves to the next candidate: false when there is none
   * @param row an `InternalRow` expression, the build row of the candidate `next` moved to
   */
  final case class Probe(code: String, usable: String, start: String, next: String, row: String)
}
