package rangejoin.execution.runtime

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.catalyst.plans._
import org.apache.spark.sql.execution.metric.SQLMetric

import rangejoin.execution.blocks.{
  InjectedFailures,
  KeyColumn,
  KeyEncoder,
  LongKeyEncoder,
  ValueKeyEncoder
}
import rangejoin.local.InequalityOp

/**
 * Semi, anti and existence joins on one inequality `l.x op r.x` and nothing else, in linear time.
 *
 * A left row has a match iff its key satisfies `op` against the most favourable right key: the
 * largest right key for `<`/`<=`, the smallest for `>`/`>=`. So one job reduces the right side
 * to that bound, and the join becomes a filter of the left side. Keys compare in Spark's order
 * (NaN largest, -0.0 = 0.0; see [[rangejoin.execution.blocks.KeyEncoder]]). A NULL left key has no
 * match; NULL right keys are ignored; with no non-NULL right key (an empty right side included), no
 * row matches.
 */
object ExistenceByBound {

  def execute(
      left: RDD[InternalRow],
      right: RDD[InternalRow],
      leftKey: Expression,
      rightKey: Expression,
      op: InequalityOp,
      joinType: JoinType,
      leftOutput: Seq[Attribute],
      output: Seq[Attribute],
      numOutputRows: SQLMetric
  ): RDD[InternalRow] = {
    val encoder = KeyEncoder.forType(leftKey.dataType)
    val ordering = KeyColumn.ordering(encoder)
    // Whether right key `a` is more favourable than `b`: a left key that fails against `a`
    // fails against `b` too.
    val better: (Any, Any) => Boolean =
      if (op.leftSmaller) ordering.gt else ordering.lt
    val bound = right
      .mapPartitions { rows =>
        val key = comparableKey(rightKey, encoder)
        var best: Option[Any] = None
        rows.foreach { row =>
          key(row).foreach { k =>
            if (best.forall(better(k, _))) best = Some(InternalRow.copyValue(k))
          }
        }
        Iterator.single(best)
      }
      .collect()
      .flatten
      .reduceOption((a, b) => if (better(a, b)) a else b)

    left.mapPartitions { rows =>
      InjectedFailures.failFirstAttempt()
      val key = comparableKey(leftKey, encoder)
      val matches: InternalRow => Boolean = bound match {
        case None => _ => false
        case Some(b) => row => key(row).exists(k => op.holds(ordering.compare(k, b)))
      }
      val kept = joinType match {
        case LeftSemi => rows.filter(matches).map(UnsafeProjection.create(output, leftOutput))
        case LeftAnti => rows.filterNot(matches).map(UnsafeProjection.create(output, leftOutput))
        case ExistenceJoin(exists) =>
          val project = UnsafeProjection.create(output, leftOutput :+ exists)
          val flagged = new JoinedRow
          val flag = new GenericInternalRow(1)
          rows.map { row =>
            flag.setBoolean(0, matches(row))
            project(flagged(row, flag))
          }
        case x =>
          throw new IllegalArgumentException(s"ExistenceByBound should not take $x as the JoinType")
      }
      kept.map { row => numOutputRows += 1; row }
    }
  }

  /** A row's key as compared by `KeyColumn.ordering(encoder)`, or None when it is NULL. */
  private def comparableKey(key: Expression, encoder: KeyEncoder): InternalRow => Option[Any] = {
    val project = UnsafeProjection.create(Seq(key))
    encoder match {
      case LongKeyEncoder(code) =>
        row => { val k = project(row); if (k.isNullAt(0)) None else Some(code(k, 0)) }
      case ValueKeyEncoder(dataType) =>
        row => { val k = project(row); if (k.isNullAt(0)) None else Some(k.get(0, dataType)) }
    }
  }
}
