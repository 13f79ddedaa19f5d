package rangejoin.shims

/** Spark's streaming classes that the tests use, from the package they live in up to Spark 4.0. */
object StreamingClasses {
  type MemoryStream[A] = org.apache.spark.sql.execution.streaming.MemoryStream[A]
  val MemoryStream = org.apache.spark.sql.execution.streaming.MemoryStream
  type StreamingQueryWrapper = org.apache.spark.sql.execution.streaming.StreamingQueryWrapper
  type StreamingSymmetricHashJoinExec =
    org.apache.spark.sql.execution.streaming.StreamingSymmetricHashJoinExec
}
