package rangejoin.local

/**
 * The local piecewise merge join of two blocks on one inequality `l.x op r.x`.
 *
 * Both key arrays must be in ascending order, as blocks are in key 0. For each left row in that
 * order, the matching right rows form one contiguous run:
 *  - `<` : right rows with `r.x > l.x`, a suffix starting at the first key above `l.x`;
 *  - `<=`: right rows with `r.x >= l.x`, a suffix starting at the first key not below `l.x`;
 *  - `>` : right rows with `r.x < l.x`, a prefix ending before the first key not below `l.x`;
 *  - `>=`: right rows with `r.x <= l.x`, a prefix ending before the first key above `l.x`.
 * The run's boundary only moves right as `l.x` grows, so one merge pointer finds every boundary:
 * O(n + m + output). Equal keys are the only difference between `<` and `<=`, which the choice
 * of "above" versus "not below" decides.
 */
final class MergeScanner(left: Array[Long], right: Array[Long], op: InequalityOp)
    extends PairScanner {

  private val m = right.length
  private var boundary = 0 // first right index whose key is above (strict) / not below l.x
  private var row = -1
  private var next = 0 // next right index to emit for `row`
  private var end = 0 // end (exclusive) of `row`'s run

  var leftIndex: Int = -1
  var rightIndex: Int = -1

  /** Whether the boundary skips right keys equal to the left key. */
  private val skipsEqual = op.leftSmaller == op.strict

  def advance(): Boolean = {
    while (next >= end) {
      row += 1
      if (row >= left.length) return false
      val key = left(row)
      while (boundary < m && (right(boundary) < key || (skipsEqual && right(boundary) == key))) {
        boundary += 1
      }
      if (op.leftSmaller) { next = boundary; end = m }
      else { next = 0; end = boundary }
    }
    leftIndex = row
    rightIndex = next
    next += 1
    true
  }

  def skipLeftRow(): Unit = next = end
}
