package rangejoin.execution

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.catalyst.plans._
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLMetrics}

import rangejoin.planning.InequalityOp

/**
 * Equality keys plus two or more inequalities that do not form a window on one column pair, e.g.
 * the interval overlap `a.chrom = b.chrom AND a.start <= b.end AND a.end >= b.start`: both inputs
 * are clustered by the keys and sorted by them, and each key group runs the local IEJoin.
 *
 * Per key group, each side's rows are cut into sorted [[Block]]s of at most `blockRows` rows, so a
 * large group runs as many bounded block pairs, and pairs whose min/max ranges cannot satisfy
 * every inequality are skipped. [[BlockJoinRuntime]] then joins each stream block with its build
 * blocks exactly as [[IEJoinExec]] does, so NULL keys, ties and join types behave the same. A full
 * outer join runs a second, unmatched-only pass per group with the sides swapped.
 *
 * Inequality `k` is `leftKeys(k) ops(k) rightKeys(k)`; there are at least two.
 */
case class KeyGroupIEJoinExec(
    leftEqualityKeys: Seq[Expression],
    rightEqualityKeys: Seq[Expression],
    leftKeys: Seq[Expression],
    ops: Seq[InequalityOp],
    rightKeys: Seq[Expression],
    residual: Option[Expression],
    joinType: JoinType,
    blockRows: Int,
    left: SparkPlan,
    right: SparkPlan
) extends KeyClusteredJoinExec
    with InequalityJoinExec {
  require(ops.size >= 2, "KeyGroupIEJoinExec needs at least two inequalities")

  override protected def leftSortColumns: Seq[Expression] = Nil
  override protected def rightSortColumns: Seq[Expression] = Nil

  override protected def localKeys: Int = 2

  override lazy val metrics: Map[String, SQLMetric] = Map(
    "numOutputRows" -> SQLMetrics.createMetric(sparkContext, "number of output rows"),
    "localJoinTime" -> SQLMetrics.createNanoTimingMetric(sparkContext, "local join time")
  )

  override def simpleString(maxFields: Int): String = {
    val rest = residual.map(r => s", residual: ${r.sql}").getOrElse("")
    s"$nodeName $joinType, keys $equalitiesString, ${inequalities.mkString("[", ", ", "]")}" +
      s"$rest, blockRows=$blockRows"
  }

  override protected def doExecute(): RDD[InternalRow] = {
    val boundLeft = leftKeys.map(BindReferences.bindReference(_, left.output))
    val boundRight = rightKeys.map(BindReferences.bindReference(_, right.output))
    val encoders = boundLeft.map(k => KeyEncoder.forType(k.dataType))
    val orderings = encoders.map(KeyColumn.ordering)
    val leftSchema = left.output
    val rightSchema = right.output
    val rows = blockRows

    def runtime(streamLeft: Boolean, emit: StreamEmit, padUnmatched: Boolean) = {
      val streamOps = if (streamLeft) ops else ops.map(_.flip)
      (
        streamOps,
        blockJoinRuntime(IEJoinLocal(streamOps(0), streamOps(1)), emit, streamLeft, padUnmatched)
      )
    }
    val (streamOps, first) = joinType match {
      case RightOuter => runtime(streamLeft = false, StreamEmit.PairsAndUnmatched, false)
      case other => runtime(streamLeft = true, StreamEmit.of(other), padUnmatched = false)
    }
    // A full outer join's second pass: the right rows that matched nothing, NULL-padded.
    val second =
      if (joinType == FullOuter) Some(runtime(false, StreamEmit.Unmatched, padUnmatched = true))
      else None
    val (streamSchema, streamKeys, buildSchema, buildKeys) =
      if (streamIsLeft) (leftSchema, boundLeft, rightSchema, boundRight)
      else (rightSchema, boundRight, leftSchema, boundLeft)

    perPartition { groups =>
      // Projections are made once per partition: a partition may hold many small groups.
      def loader(schema: Seq[Attribute], keys: Seq[Expression]) = {
        val keyProjection = UnsafeProjection.create(keys)
        val toUnsafe = UnsafeProjection.create(schema, schema)
        (group: Iterator[InternalRow]) =>
          Block.loadSorted(group, schema.length, keyProjection, toUnsafe, encoders, rows)
      }
      val loadStream = loader(streamSchema, streamKeys)
      val loadBuild = loader(buildSchema, buildKeys)
      def joinBlocks(
          stream: Array[Block],
          build: Array[Block],
          ops: Seq[InequalityOp],
          run: BlockJoinRuntime
      ): Iterator[InternalRow] = {
        val buildStats = build.map(_.stats)
        stream.iterator.flatMap { s =>
          val stats = s.stats
          run.join(
            s,
            build.indices.iterator.filter(b => stats.canMatch(buildStats(b), ops, orderings)).map(
              build
            )
          )
        }
      }
      groups.flatMap { g =>
        val streamBlocks = loadStream(g.stream)
        val buildBlocks = loadBuild(g.build)
        joinBlocks(streamBlocks, buildBlocks, streamOps, first) ++ second.iterator.flatMap {
          case (ops, run) => joinBlocks(buildBlocks, streamBlocks, ops, run)
        }
      }
    }
  }

  override protected def withNewChildrenInternal(newLeft: SparkPlan, newRight: SparkPlan)
      : KeyGroupIEJoinExec = copy(left = newLeft, right = newRight)
}
