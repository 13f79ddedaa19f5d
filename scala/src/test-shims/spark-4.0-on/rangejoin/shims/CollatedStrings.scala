package rangejoin.shims

import org.apache.spark.sql.types.{DataType, StringType}

/** From Spark 4.0 on a string type may carry a collation. */
object CollatedStrings {

  /** A string type that does not order by bytes, where the Spark version has one. */
  val caseInsensitive: Option[DataType] = Some(StringType("UTF8_LCASE"))
}
