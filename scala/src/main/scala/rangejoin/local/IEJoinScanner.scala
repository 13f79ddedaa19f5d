package rangejoin.local

/**
 * One input of a local IEJoin: its rows' codes on the two keys, in row order, and the row
 * indices in ascending order of each key (ties in any order), or `null` for a key the rows are
 * in ascending order of already. A block's rows are in key 0 order and it computes its key 1
 * order once, when it is cut: as `x` and `y`, that is `IEJoinInput(key0, null, key1, key1Order)`,
 * and a self-join whose right keys are the left's two swapped reads the same block as
 * `IEJoinInput(key1, key1Order, key0, null)`.
 */
final case class IEJoinInput(
    x: Array[Long],
    xOrder: Array[Int],
    y: Array[Long],
    yOrder: Array[Int]
) {
  def size: Int = x.length
}

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
 * Nothing is sorted here: each input carries its x and y orders ([[IEJoinInput]]), so L1 and
 * L2 are linear merges of the two inputs' orders, each walked forwards for an ascending order
 * and backwards for a descending one. How tied rows of one input are ordered does not matter;
 * the merge places tied rows of different inputs by the rules above.
 * Cost: O(n + m + output) steps and three int arrays of n + m.
 *
 * Use: see [[PairScanner]].
 */
final class IEJoinScanner(
    left: IEJoinInput,
    right: IEJoinInput,
    op1: InequalityOp,
    op2: InequalityOp
) extends PairScanner {

  private val n = left.size
  private val total = n + right.size

  /** L1: position -> row number. */
  private val l1: Array[Int] = IEJoinScanner.merge(
    left.x,
    left.xOrder,
    right.x,
    right.xOrder,
    ascending = op1.leftSmaller,
    rightFirstOnTies = op1.strict
  )

  /** Row number -> L1 position. */
  private val l1Position: Array[Int] = IEJoinScanner.inverse(l1)

  /** L2: the visiting order (row numbers). */
  private val l2: Array[Int] = IEJoinScanner.merge(
    left.y,
    left.yOrder,
    right.y,
    right.yOrder,
    ascending = !op2.leftSmaller,
    rightFirstOnTies = !op2.strict
  )

  private val marked = new HierarchicalBitSet(total)
  private var visited = 0 // rows of L2 visited
  private var currentLeft = -1 // the left row whose set bits are being emitted, or -1
  private var wordIndex = 0 // the word of `marked` that holds its next set bits
  private var word = 0L // those bits of that word not yet emitted

  def skipLeftRow(): Unit = currentLeft = -1

  // A left row's pairs are the set bits after its L1 position, taken a word at a time: the bits
  // of a word are emitted by clearing its lowest, and only an emptied word asks the bit set for
  // the next (a dense band join emits about a thousand bits per left row).
  def fill(lefts: Array[Int], rights: Array[Int]): Int = {
    var filled = 0
    while (filled < lefts.length) {
      if (currentLeft >= 0) {
        if (word != 0) {
          lefts(filled) = currentLeft
          rights(filled) = l1((wordIndex << 6) + java.lang.Long.numberOfTrailingZeros(word)) - n
          word &= word - 1
          filled += 1
        } else seek((wordIndex + 1) << 6)
      } else if (visited == total) return filled
      else {
        val row = l2(visited)
        visited += 1
        if (row >= n) marked.set(l1Position(row))
        else {
          currentLeft = row
          seek(l1Position(row) + 1)
        }
      }
    }
    filled
  }

  /** Moves to the current left row's first set bit at L1 position `from` or after, if any. */
  private def seek(from: Int): Unit = {
    val bit = marked.nextSetBit(from)
    if (bit < 0) currentLeft = -1
    else {
      wordIndex = bit >>> 6
      word = marked.word(wordIndex) & (-1L << (bit & 63))
    }
  }
}

// The loops over whole blocks are methods of the companion, not constructor code: the JIT compiles
// a method once it is hot, while a constructor runs once per scanner, so its loops would run
// interpreted for many block pairs.
object IEJoinScanner {

  /**
   * The scanner of `left.x op1 right.x AND left.y op2 right.y`, the cheapest that is exact for
   * these two inputs. When one inequality holds for every pair (the inputs' ranges on its key do
   * not overlap the wrong way, as for most block pairs off the diagonal of a band or anomaly
   * join), only the other one decides, and a [[MergeScanner]] on that key answers in one merge
   * ([[mergeOn]]). Otherwise the full [[IEJoinScanner]].
   */
  def apply(left: IEJoinInput, right: IEJoinInput, op1: InequalityOp, op2: InequalityOp)
      : PairScanner =
    if (left.size == 0 || right.size == 0) new IEJoinScanner(left, right, op1, op2)
    else if (holdsForAll(left.y, left.yOrder, right.y, right.yOrder, op2)) {
      mergeOn(left.x, left.xOrder, right.x, right.xOrder, op1)
    } else if (holdsForAll(left.x, left.xOrder, right.x, right.xOrder, op1)) {
      mergeOn(left.y, left.yOrder, right.y, right.yOrder, op2)
    } else new IEJoinScanner(left, right, op1, op2)

  /**
   * The [[MergeScanner]] of `left op right` on one key, each input ascending in `order` (`null`:
   * in row order): directly on keys in row order, else on the keys gathered in that order,
   * reporting the inputs' own row indices ([[PermutedScanner]]).
   */
  private def mergeOn(
      left: Array[Long],
      leftOrder: Array[Int],
      right: Array[Long],
      rightOrder: Array[Int],
      op: InequalityOp
  ): PairScanner = {
    def inOrder(keys: Array[Long], order: Array[Int]) =
      if (order == null) keys else RadixSort.gather(keys, order)
    val merge = new MergeScanner(inOrder(left, leftOrder), inOrder(right, rightOrder), op)
    if (leftOrder == null && rightOrder == null) merge
    else new PermutedScanner(merge, leftOrder, rightOrder)
  }

  /**
   * Whether `op` holds for every pair of a left and a right key, each input's keys ascending in
   * `order` (`null`: in row order).
   */
  private def holdsForAll(
      left: Array[Long],
      leftOrder: Array[Int],
      right: Array[Long],
      rightOrder: Array[Int],
      op: InequalityOp
  ): Boolean = {
    def at(keys: Array[Long], order: Array[Int], k: Int) = keys(if (order == null) k else order(k))
    op.holdsForAll(
      at(left, leftOrder, 0),
      at(left, leftOrder, left.length - 1),
      at(right, rightOrder, 0),
      at(right, rightOrder, right.length - 1)
    )
  }

  /** The inverse of the permutation `order`. */
  private def inverse(order: Array[Int]): Array[Int] = {
    val position = new Array[Int](order.length)
    var k = 0
    while (k < order.length) { position(order(k)) = k; k += 1 }
    position
  }

  /**
   * Row numbers (left `0 until n`, right `n until n + m`) in ascending or descending key order,
   * with right rows before left rows among equal keys when `rightFirstOnTies`, else after.
   * `leftOrder` lists the left rows in ascending key order, or is `null` when they are in that
   * order already; `rightOrder` likewise.
   */
  private[local] def merge(
      left: Array[Long],
      leftOrder: Array[Int],
      right: Array[Long],
      rightOrder: Array[Int],
      ascending: Boolean,
      rightFirstOnTies: Boolean
  ): Array[Int] = {
    val n = left.length
    val m = right.length
    // The row that comes k-th of an input in this merge's direction.
    def nth(order: Array[Int], size: Int, k: Int): Int = {
      val rank = if (ascending) k else size - 1 - k
      if (order == null) rank else order(rank)
    }
    val out = new Array[Int](n + m)
    var i = 0
    var j = 0
    while (i < n && j < m) {
      val l = nth(leftOrder, n, i)
      val r = nth(rightOrder, m, j)
      val cmp =
        if (ascending) java.lang.Long.compare(left(l), right(r))
        else java.lang.Long.compare(right(r), left(l))
      if (cmp < 0 || (cmp == 0 && !rightFirstOnTies)) { out(i + j) = l; i += 1 }
      else { out(i + j) = n + r; j += 1 }
    }
    while (i < n) { out(i + j) = nth(leftOrder, n, i); i += 1 }
    while (j < m) { out(i + j) = n + nth(rightOrder, m, j); j += 1 }
    out
  }
}
