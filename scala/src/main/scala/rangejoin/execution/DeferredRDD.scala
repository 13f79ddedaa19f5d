package rangejoin.execution

import scala.reflect.ClassTag

import org.apache.spark.{OneToOneDependency, Partition, SparkContext, TaskContext}
import org.apache.spark.rdd.RDD

/**
 * An RDD whose lineage needs driver-side jobs first (loading sorted blocks, reducing a side to
 * its bound): `prepare` runs them and returns the RDD to compute. It runs once, when Spark first
 * asks for this RDD's partitions, which it does on the thread that submits a job over it (the
 * scheduler computes every RDD's partitions there before it schedules anything). So building the
 * plan, `explain()` and `df.rdd` start no job; only an action does.
 *
 * Spark's broadcast exchange starts its job in `doPrepare` instead, but `doPrepare` also runs for
 * `df.rdd`, which executes the physical plan without an action.
 *
 * Executors read the prepared RDD through this RDD's dependency, never through `prepare`.
 */
final class DeferredRDD[T: ClassTag](sc: SparkContext, @transient private val prepare: () => RDD[T])
    extends RDD[T](sc, Nil) {

  @transient private lazy val prepared: RDD[T] = prepare()

  override protected def getDependencies: Seq[OneToOneDependency[T]] =
    Seq(new OneToOneDependency(prepared))

  override protected def getPartitions: Array[Partition] = firstParent[T].partitions

  override protected def getPreferredLocations(split: Partition): Seq[String] =
    firstParent[T].preferredLocations(split)

  override def compute(split: Partition, context: TaskContext): Iterator[T] =
    firstParent[T].iterator(split, context)
}
