package rangejoin.shims

import org.apache.spark.sql.catalyst.util.UnsafeRowUtils
import org.apache.spark.sql.types.DataType
import org.apache.spark.unsafe.types.UTF8String

/** From Spark 4.0 on a string type may carry a collation that orders and equates otherwise. */
object StringOrders {

  /** Whether values of `dataType` are equal exactly when their bytes are (no such collation). */
  def bytesDecideEquality(dataType: DataType): Boolean = UnsafeRowUtils.isBinaryStable(dataType)

  /** `a` against `b`, byte by byte, whatever their collation. */
  def compareBytes(a: UTF8String, b: UTF8String): Int = a.binaryCompare(b)
}
