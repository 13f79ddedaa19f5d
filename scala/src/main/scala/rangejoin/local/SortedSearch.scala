package rangejoin.local

/**
 * Binary search over a slice of ascending codes, written for a conditional move: each step
 * halves the slice and either moves its base or not, with nothing else depending on the
 * comparison, a form the JIT compiles to a conditional move where the comparison's outcome is
 * unpredictable (a random point in a short run of codes, a coin toss at each step). Such a lookup
 * then pays its `log2(n)` loads and no mispredicted branch. The loop runs a number of times that
 * depends on the slice's length alone.
 */
object SortedSearch {

  /**
   * One past the last position in `[from, until)` whose code is at most `key`: `from` when none
   * is, `until` when all are.
   *
   * Invariant: the answer lies in `[base, base + n]`. A step looks at `codes(base + half)`: at
   * most `key`, the answer is past it, in `[base + half + 1, base + n]`; above `key`, it is at or
   * before it, in `[base, base + half]`; both lie in `[base', base' + n - half]`.
   */
  def upperBound(codes: Array[Long], from: Int, until: Int, key: Long): Int = {
    var base = from
    var n = until - from
    if (n <= 0) return from
    while (n > 1) {
      val half = n >>> 1
      base = if (codes(base + half) <= key) base + half else base
      n -= half
    }
    if (codes(base) <= key) base + 1 else base
  }
}
