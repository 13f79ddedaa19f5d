package rangejoin.shims

import org.apache.spark.sql.types.DataType
import org.apache.spark.unsafe.types.UTF8String

/** Spark 3.5 has no collations: every string compares and equals by its UTF-8 bytes. */
object StringOrders {

  /** Whether values of `dataType` are equal exactly when their bytes are. */
  def bytesDecideEquality(dataType: DataType): Boolean = true

  /** `a` against `b`, byte by byte. */
  def compareBytes(a: UTF8String, b: UTF8String): Int = a.compareTo(b)
}
