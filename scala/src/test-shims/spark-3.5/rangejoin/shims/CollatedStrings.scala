package rangejoin.shims

import org.apache.spark.sql.types.DataType

/** Spark 3.5 has no collations. */
object CollatedStrings {

  /** A string type that does not order by bytes, where the Spark version has one. */
  val caseInsensitive: Option[DataType] = None
}
