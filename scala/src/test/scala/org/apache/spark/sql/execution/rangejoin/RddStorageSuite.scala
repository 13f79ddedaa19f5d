package org.apache.spark.sql.execution.rangejoin

import org.apache.spark.{Partition, SparkContext, TaskContext}
import org.apache.spark.rdd.RDD
import org.apache.spark.storage.StorageLevel

import rangejoin.RangeJoinTestBase

/**
 * [[RddStorage]] describes only the RDDs it is asked about: Spark's public storage info computes
 * the partitions of every persisted RDD, which in a query with two block joins reaches the join
 * being prepared (`NestedBlockJoinsSuite` runs such queries).
 */
class RddStorageSuite extends RangeJoinTestBase {

  /** A persisted RDD whose partitions cannot be computed yet, as a block join being prepared. */
  private class Unready(sc: SparkContext) extends RDD[Int](sc, Nil) {
    override protected def getPartitions: Array[Partition] =
      throw new IllegalStateException("partitions asked for")
    override def compute(split: Partition, context: TaskContext): Iterator[Int] = Iterator.empty
  }

  test("disk bytes of the RDDs named, without computing other persisted RDDs' partitions") {
    val sc = spark.sparkContext
    val onDisk = sc.parallelize(1 to 10000, 2).persist(StorageLevel.DISK_ONLY)
    val unready = new Unready(sc).persist(StorageLevel.MEMORY_AND_DISK)
    try {
      assert(RddStorage.diskBytes(sc, Set(onDisk.id)) == 0L)
      onDisk.count()
      assert(RddStorage.diskBytes(sc, Set(onDisk.id)) > 0L)
      intercept[IllegalStateException](sc.getRDDStorageInfo)
    } finally {
      onDisk.unpersist(blocking = true)
      unready.unpersist(blocking = true)
    }
  }
}
