package rangejoin.execution.runtime

import org.apache.spark.sql.catalyst.expressions.Attribute

/**
 * The columns a join's runtime binds to: each input's output, and the join's own output (see
 * [[rangejoin.execution.JoinOutput]]). Residual conditions are bound to `left ++ right`.
 */
final case class JoinColumns(left: Seq[Attribute], right: Seq[Attribute], output: Seq[Attribute]) {

  /** The columns of the stream input and of the build input, for a stream side. */
  def streamAndBuild(streamIsLeft: Boolean): (Seq[Attribute], Seq[Attribute]) =
    if (streamIsLeft) (left, right) else (right, left)
}
