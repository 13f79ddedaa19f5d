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

  /** Whether the boundary skips right keys equal to the left key. */
  private val skipsEqual = op.leftSmaller == op.strict

  def fill(lefts: Array[Int], rights: Array[Int]): Int = {
    var filled = 0
    while (filled < lefts.length) {
      if (next < end) {
        // The rest of the row's run, as much of it as the batch holds.
        val count = math.min(end - next, lefts.length - filled)
        java.util.Arrays.fill(lefts, filled, filled + count, row)
        var k = 0
        while (k < count) { rights(filled + k) = next + k; k += 1 }
        next += count
        filled += count
      } else {
        row += 1
        if (row >= left.length) return filled
        val key = left(row)
        while (boundary < m && (right(boundary) < key || (skipsEqual && right(boundary) == key))) {
          boundary += 1
        }
        if (op.leftSmaller) { next = boundary; end = m }
        else { next = 0; end = boundary }
      }
    }
    filled
  }

  def skipLeftRow(): Unit = next = end
}
