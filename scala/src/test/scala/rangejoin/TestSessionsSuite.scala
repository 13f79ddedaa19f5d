package rangejoin

import org.apache.spark.SparkException
import org.apache.spark.sql.execution.rangejoin.MemoryHog

/**
 * The test sessions fail a task that leaks execution memory ([[TestSessions]]): the setting is
 * on in the running context, and a task that ends holding memory fails its job.
 */
class TestSessionsSuite extends RangeJoinTestBase {

  test("the test session's context has spark.unsafe.exceptionOnMemoryLeak=true") {
    assert(spark.sparkContext.getConf.get("spark.unsafe.exceptionOnMemoryLeak") == "true")
  }

  test("a task that ends holding execution memory fails with Spark's leak error") {
    val e = intercept[SparkException] {
      spark.sparkContext
        .parallelize(1 to 4, 1)
        .mapPartitions { rows =>
          new MemoryHog(0L) // takes the task's memory and never gives it back
          rows
        }
        .collect()
    }
    assert(e.getMessage.contains("Managed memory leak detected"), e.getMessage)
    // The context still runs jobs.
    assert(spark.range(10).count() == 10)
  }
}
