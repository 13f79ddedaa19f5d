package rangejoin.execution

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, BoundReference, SortOrder}
import org.apache.spark.sql.catalyst.expressions.codegen.CodegenContext
import org.apache.spark.sql.catalyst.plans.physical.Partitioning
import org.apache.spark.sql.execution.{CodegenSupport, InputAdapter, SparkPlan, UnaryExecNode}

/**
 * Hands the output of a join over sorted blocks ([[BlockRangeJoinExec]], its child) to the
 * whole-stage generated code of the operators above it without building a row per output row:
 * the generated loop reads each output row as a view of its pair
 * ([[BlockRangeJoinExec#executeUnprojected]]), and the operators above (a filter, a projection,
 * a partial aggregate) read only the columns they use straight from the pair's two input rows.
 * Run on its own (whole-stage codegen off, or a stage that falls back), it outputs the join's
 * unsafe rows unchanged.
 *
 * Without it, a join with many output rows per input row projects every pair into an unsafe row
 * of which the aggregate above reads a column or two: a copy of every column per pair, most of
 * them never read.
 *
 * The join stays outside the generated code (Spark puts an input adapter between the two): its
 * loads and block pairs are not per-row code. The generated loop is Spark's input loop: read a
 * row, let the operators above consume its columns before the next is read (a view is valid
 * until then; operators that keep rows copy them, `needCopyResult`), and return when they ask to
 * stop. A column's value is read from the view only where an operator uses it.
 */
case class BlockJoinOutputExec(child: SparkPlan) extends UnaryExecNode with CodegenSupport {

  override def output: Seq[Attribute] = child.output
  override def outputPartitioning: Partitioning = child.outputPartitioning
  override def outputOrdering: Seq[SortOrder] = child.outputOrdering

  override protected def doExecute(): RDD[InternalRow] = child.execute()

  /**
   * The join's rows as views. In a generated stage the child is the join behind Spark's input
   * adapter; any other child (a plan rule replaced the join) gives its unsafe rows.
   */
  override def inputRDDs(): Seq[RDD[InternalRow]] = child match {
    case InputAdapter(join: BlockRangeJoinExec) => join.executeUnprojected() :: Nil
    case other => other.execute() :: Nil
  }

  // The views are reused from row to row.
  override def needCopyResult: Boolean = true

  // The generated loop produces the rows, as a leaf of the stage does.
  override protected def canCheckLimitNotReached: Boolean = true

  override protected def doProduce(ctx: CodegenContext): String = {
    val input = ctx.addMutableState(
      "scala.collection.Iterator",
      "joinOutput",
      v => s"$v = inputs[0];",
      forceInline = true
    )
    val row = ctx.freshName("joined")
    // The columns as variables read from the view when used, not the view itself: an operator
    // that needs a row (the stage's output) gets an unsafe row projected from them.
    ctx.INPUT_ROW = row
    ctx.currentVars = null
    val columns = output.zipWithIndex.map { case (a, i) =>
      BoundReference(i, a.dataType, a.nullable).genCode(ctx)
    }
    s"""
       |while ($limitNotReachedCond $input.hasNext()) {
       |  InternalRow $row = (InternalRow) $input.next();
       |  ${consume(ctx, columns, null).trim}
       |  if (shouldStop()) return;
       |}
     """.stripMargin
  }

  override protected def withNewChildInternal(newChild: SparkPlan): BlockJoinOutputExec =
    copy(child = newChild)
}
