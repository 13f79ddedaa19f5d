package rangejoin.local

/**
 * The local IEJoin of one left block and one right block on two inequalities
 * `l.x op1 r.x AND l.y op2 r.y` (Khayyat et al., with the union-array layout DuckDB uses).
 *
 * Keys arrive as codes whose signed order is Spark's order (see
 * [[rangejoin.execution.blocks.KeyColumn]]); no key is NULL. The n left rows and m right rows are
 * numbered together: left row `i` is `i`, right row `j` is `n + j`.
 *
 *  1. '''L1''' orders all rows by x so that, for a left row at position p, the right rows that
 *     satisfy `op1` are exactly the right rows after p. `<`/`<=` sort ascending and `>`/`>=`
 *     descending. Ties decide `<` versus `<=`: for a strict op, equal right rows are placed before
 *     equal left rows (so none lies after p); for a non-strict op, after them (so all do).
 *  1. '''L2''' is the order in which rows are visited: by y, such that when a left row is
 *     visited, the right rows already visited are exactly those that satisfy `op2`. `<`/`<=` visit
 *     descending (larger right values first) and `>`/`>=` ascending. On ties, a strict op visits
 *     the left row first, a non-strict op the right rows first.
 *  1. '''Scan.''' Walking L2, a right row sets its L1 position in a bit set; a left row at L1
 *     position p emits every set bit after p. Every emitted pair satisfies both conditions and
 *     every satisfying pair is emitted once.
 *
 * Each order is a linear merge when both blocks are already in that order (blocks are sorted
 * ascending on x, which L1 uses for `<`/`<=`), else a stable radix sort that gets the tie rule
 * from the order the rows are handed to it. Cost: at most two sorts, then O(n + m + output) bit-set
 * steps.
 *
 * Use: `while (scanner.advance()) emit(scanner.leftIndex, scanner.rightIndex)`.
 */
final class IEJoinScanner(
    leftX: Array[Long],
    leftY: Array[Long],
    rightX: Array[Long],
    rightY: Array[Long],
    op1: InequalityOp,
    op2: InequalityOp
) extends PairScanner {

  private val n = leftX.length
  private val total = n + rightX.length

  /** L1: position -> row number. */
  private val l1: Array[Int] = IEJoinScanner.order(
    leftX,
    rightX,
    ascending = op1.leftSmaller,
    rightFirstOnTies = op1.strict
  )

  /** Row number -> L1 position. */
  private val l1Position: Array[Int] = {
    val p = new Array[Int](total)
    var k = 0
    while (k < total) { p(l1(k)) = k; k += 1 }
    p
  }

  /** L2: the visiting order (row numbers). */
  private val l2: Array[Int] = IEJoinScanner.order(
    leftY,
    rightY,
    ascending = !op2.leftSmaller,
    rightFirstOnTies = !op2.strict
  )

  private val marked = new HierarchicalBitSet(total)
  private var visited = 0
  private var currentLeft = -1
  private var cursor = -1

  var leftIndex: Int = -1
  var rightIndex: Int = -1

  def skipLeftRow(): Unit = currentLeft = -1

  def advance(): Boolean = {
    while (true) {
      if (currentLeft >= 0) {
        cursor = marked.nextSetBit(cursor + 1)
        if (cursor >= 0) {
          leftIndex = currentLeft
          rightIndex = l1(cursor) - n
          return true
        }
        currentLeft = -1
      }
      if (visited == total) return false
      val row = l2(visited)
      visited += 1
      if (row >= n) marked.set(l1Position(row))
      else {
        currentLeft = row
        cursor = l1Position(row)
      }
    }
    false
  }
}

object IEJoinScanner {

  /**
   * Row numbers (left `0 until n`, right `n until n + m`) sorted by key, ascending or descending,
   * with right rows before left rows among equal keys when `rightFirstOnTies`, else after.
   */
  private[local] def order(
      left: Array[Long],
      right: Array[Long],
      ascending: Boolean,
      rightFirstOnTies: Boolean
  ): Array[Int] =
    new UnionOrder(left, right, ascending, rightFirstOnTies).rows

  /**
   * One order of the union of two key arrays. Two inputs that are each already in that order (as
   * blocks are in key 0) are merged in linear time; otherwise a stable radix sort does it.
   */
  private final class UnionOrder(
      left: Array[Long],
      right: Array[Long],
      ascending: Boolean,
      rightFirstOnTies: Boolean
  ) {
    private val n = left.length
    private val m = right.length

    def rows: Array[Int] = if (isSorted(left) && isSorted(right)) merge() else radixSort()

    /** Signed comparison of two keys in this order's direction. */
    private def compare(a: Long, b: Long): Int =
      if (ascending) java.lang.Long.compare(a, b) else java.lang.Long.compare(b, a)

    private def isSorted(keys: Array[Long]): Boolean = {
      var k = 1
      while (k < keys.length) {
        if (compare(keys(k - 1), keys(k)) > 0) return false
        k += 1
      }
      true
    }

    private def merge(): Array[Int] = {
      val out = new Array[Int](n + m)
      var i = 0
      var j = 0
      var k = 0
      while (i < n || j < m) {
        val takeLeft = j == m || (i < n && {
          val cmp = compare(left(i), right(j))
          cmp < 0 || (cmp == 0 && !rightFirstOnTies)
        })
        if (takeLeft) { out(k) = i; i += 1 }
        else { out(k) = n + j; j += 1 }
        k += 1
      }
      out
    }

    private def radixSort(): Array[Int] = {
      // Handing the rows to a stable sort in this order decides the ties: position k holds row
      // rowAt(k).
      def rowAt(k: Int): Int = if (!rightFirstOnTies) k else if (k < m) n + k else k - m
      val keys = new Array[Long](n + m)
      var k = 0
      while (k < n + m) {
        val row = rowAt(k)
        val key = if (row < n) left(row) else right(row - n)
        keys(k) = if (ascending) key else ~key // ~ reverses signed order
        k += 1
      }
      val sorted = RadixSort.sortedIndices(keys)
      k = 0
      while (k < sorted.length) { sorted(k) = rowAt(sorted(k)); k += 1 }
      sorted
    }
  }
}
