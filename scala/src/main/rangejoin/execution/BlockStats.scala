package rangejoin.execution

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Expression, UnsafeProjection}
import org.apache.spark.sql.catalyst.types.PhysicalDataType

import rangejoin.planning.InequalityOp

/**
 * The range of every inequality key over the rows of one block that have no NULL key.
 * `rows == 0` means the block cannot match anything, and then `min`/`max` are empty.
 */
final case class BlockStats(rows: Long, min: Array[Any], max: Array[Any])

object BlockStats {

  /** One [[BlockStats]] per partition of `blocks`, in partition order (one Spark job). */
  def collect(blocks: RDD[InternalRow], keys: Seq[Expression]): Array[BlockStats] = {
    val orderings = keys.map(k => PhysicalDataType.ordering(k.dataType)).toArray
    val types = keys.map(_.dataType).toArray
    blocks
      .mapPartitions { rows =>
        val project = UnsafeProjection.create(keys)
        val min = new Array[Any](types.length)
        val max = new Array[Any](types.length)
        var count = 0L
        rows.foreach { row =>
          val k = project(row)
          if (!k.anyNull) {
            var i = 0
            while (i < types.length) {
              val v = k.get(i, types(i))
              if (count == 0 || orderings(i).lt(v, min(i))) min(i) = InternalRow.copyValue(v)
              if (count == 0 || orderings(i).gt(v, max(i))) max(i) = InternalRow.copyValue(v)
              i += 1
            }
            count += 1
          }
        }
        Iterator.single(
          if (count == 0) BlockStats(0, Array.empty, Array.empty) else BlockStats(count, min, max))
      }
      .collect()
  }

  /**
   * Whether some row of block `l` and some row of block `r` can satisfy every inequality: for
   * `<`/`<=` the smallest left value against the largest right value, for `>`/`>=` the reverse.
   */
  def canMatch(
      l: BlockStats,
      r: BlockStats,
      ops: Seq[InequalityOp],
      orderings: Seq[Ordering[Any]]): Boolean =
    l.rows > 0 && r.rows > 0 && ops.indices.forall { k =>
      val op = ops(k)
      val cmp =
        if (op.leftSmaller) orderings(k).compare(l.min(k), r.max(k))
        else orderings(k).compare(l.max(k), r.min(k))
      op.holds(cmp)
    }
}
