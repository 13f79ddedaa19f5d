package org.apache.spark.sql.execution.rangejoin

import org.apache.spark.SparkContext

/** Storage facts of persisted RDDs, asked of the RDDs named only. */
object RddStorage {

  /**
   * Bytes of the persisted RDDs `ids` that Spark holds on local disk now. Only those RDDs are
   * described: Spark's public `getRDDStorageInfo` computes the partitions of every persisted RDD,
   * and in a query with two block joins one of them is the other join's sorted blocks, whose
   * input may be the join being prepared on this thread.
   */
  def diskBytes(sc: SparkContext, ids: Set[Int]): Long =
    sc.getRDDStorageInfo(rdd => ids(rdd.id)).map(_.diskSize).sum
}
