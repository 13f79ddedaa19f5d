package rangejoin.execution.runtime

import rangejoin.execution.blocks.{Block, KeyColumn}
import rangejoin.local.{IEJoinInput, IEJoinScanner, InequalityOp, MergeScanner, PairScanner}

/** A local join algorithm for one stream block and one build block, on the blocks' keys. */
sealed trait LocalJoin extends Serializable {
  def scanner(stream: Block, build: Block): PairScanner

  /** At most the heap bytes a scanner of a `rows`-row block pair (both blocks) allocates. */
  def workingBytes(rows: Long): Long
}

/**
 * IEJoin on keys 0 and 1: `stream.x op1 build.x AND stream.y op2 build.y`. Blocks are in key 0
 * order and carry their key 1 order ([[Block.key1Order]]), so the scanner only merges; a block
 * pair on which one inequality holds for every pair is a merge on the other key
 * ([[IEJoinScanner.apply]]). Codes of value-typed keys are dense ranks over both blocks, which
 * order each block's rows as its values do.
 *
 * A side that is `swapped` reads the blocks of the other input of a self-join whose right keys
 * are its left keys 0 and 1 swapped (as in `r.start <= s.end AND r.end >= s.start`): its x is
 * the block's key 1, through the block's key 1 order, and its y the block's key 0, in row order.
 */
final case class IEJoinLocal(
    op1: InequalityOp,
    op2: InequalityOp,
    streamSwapped: Boolean = false,
    buildSwapped: Boolean = false
) extends LocalJoin {
  def scanner(stream: Block, build: Block): PairScanner = {
    def key(block: Block, swapped: Boolean, k: Int) = block.keys(if (swapped) 1 - k else k)
    val (sx, bx) = KeyColumn.jointCodes(key(stream, streamSwapped, 0), key(build, buildSwapped, 0))
    val (sy, by) = KeyColumn.jointCodes(key(stream, streamSwapped, 1), key(build, buildSwapped, 1))
    def input(x: Array[Long], y: Array[Long], block: Block, swapped: Boolean) =
      if (swapped) IEJoinInput(x, block.key1Order, y, null)
      else IEJoinInput(x, null, y, block.key1Order)
    IEJoinScanner(
      input(sx, sy, stream, streamSwapped),
      input(bx, by, build, buildSwapped),
      op1,
      op2
    )
  }

  // Codes of two value-typed keys (8 + 8), L1, its inverse and L2 (3 x 4), and the bit set's
  // levels (under 1).
  def workingBytes(rows: Long): Long = 29L * rows

}

/** Piecewise merge join on key 0: `stream.x op build.x`. */
final case class MergeLocal(op: InequalityOp) extends LocalJoin {
  def scanner(stream: Block, build: Block): PairScanner = {
    val (sx, bx) = KeyColumn.jointCodes(stream.keys(0), build.keys(0))
    new MergeScanner(sx, bx, op)
  }

  // Codes of a value-typed key.
  def workingBytes(rows: Long): Long = 8L * rows

}
