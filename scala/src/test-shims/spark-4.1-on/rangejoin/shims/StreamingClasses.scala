package rangejoin.shims

/** Spark's streaming classes that the tests use, from the package they live in from Spark 4.1 on. */
object StreamingClasses {
  type MemoryStream[A] = org.apache.spark.sql.execution.streaming.runtime.MemoryStream[A]
  val MemoryStream = org.apache.spark.sql.execution.streaming.runtime.MemoryStream
  type StreamingQueryWrapper =
    org.apache.spark.sql.execution.streaming.runtime.StreamingQueryWrapper
  type StreamingSymmetricHashJoinExec =
    org.apache.spark.sql.execution.streaming.operators.stateful.join.StreamingSymmetricHashJoinExec
}
