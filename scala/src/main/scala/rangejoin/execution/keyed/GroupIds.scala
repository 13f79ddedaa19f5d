package rangejoin.execution.keyed

import org.apache.spark.sql.catalyst.expressions.{BoundReference, Expression, UnsafeRow}
import org.apache.spark.sql.types._

/**
 * The group number of each distinct equality key of an index, numbered from 0 in order of
 * first appearance. Keys are rows of the equality keys' values with no NULL.
 */
sealed trait GroupIds {

  /** The number of `key`'s group, numbering it next if it is new. */
  def getOrAdd(key: UnsafeRow): Int

  /** The number of `key`'s group, or -1 if no group has it. */
  def get(key: UnsafeRow): Int

  def size: Int

  /** Called once every key is added: the lookups that follow may use a faster structure. */
  def seal(): Unit = ()

  /** A reader of the keys `keys` (bound to the columns of the rows it reads) for this table. */
  def keys(keys: Seq[Expression]): GroupKey = new GroupKey.Projected(this, keys)
}

object GroupIds {

  /** The slots of a direct table per key at most: at 4 bytes a slot, 16 bytes per key. */
  private val DirectSlotsPerKey = 4

  /**
   * Group numbers for keys of these types: one integral key (integers, dates, timestamps) by its
   * value, without a boxed row per lookup; anything else by the key row's bytes, which decide
   * equality for the key types the planner hashes.
   */
  def forKeys(types: Seq[DataType]): GroupIds = types match {
    case Seq(t) if IntegralColumn.width(t) > 0 => new ByValue(IntegralColumn.width(t))
    case _ => new ByBytes
  }

  /** Keys by their rows' bytes, in a hash map of copied rows. */
  final class ByBytes extends GroupIds {
    private val ids = new java.util.HashMap[UnsafeRow, Integer]()

    def getOrAdd(key: UnsafeRow): Int = {
      val known = ids.get(key)
      if (known != null) known.intValue
      else {
        ids.put(key.copy(), ids.size)
        ids.size - 1
      }
    }

    def get(key: UnsafeRow): Int = {
      val g = ids.get(key)
      if (g == null) -1 else g.intValue
    }

    def size: Int = ids.size
  }

  /**
   * One integral key by its value, in an open-addressing table (linear probing, at most half
   * full) whose slots hold a key and its group side by side in one array: a lookup reads one or
   * two neighbouring slots instead of following a boxed row, its bytes and a boxed number across
   * the heap. A key that is an integral column of the rows read is read in place ([[keys]]).
   *
   * @param width the key's width ([[IntegralColumn]])
   */
  final class ByValue(width: Int) extends GroupIds {
    // Slot s: its key at 2s, its group + 1 at 2s + 1 (0: empty).
    private var slots = new Array[Long](32)
    private var count = 0

    def getOrAdd(key: UnsafeRow): Int = getOrAddValue(IntegralColumn.read(key, 0, width))

    /** The number of the group of key `value`, numbering it next if it is new. */
    def getOrAddValue(value: Long): Int =
      if (dense != null) {
        val i = (value - min).toInt
        if (dense(i) < 0) { dense(i) = count; count += 1 }
        dense(i)
      } else addHashed(value)

    private def addHashed(value: Long): Int = {
      val slot = find(value)
      if (slots(slot + 1) > 0) slots(slot + 1).toInt - 1
      else {
        slots(slot) = value
        count += 1
        slots(slot + 1) = count
        if (4 * count > slots.length) grow()
        count - 1
      }
    }

    // When the keys are dense (after `seal`, or from `expect` on): the group of key `min + i` at
    // `i` (-1: none), and no slots.
    private var dense: Array[Int] = _
    private var min = 0L

    /**
     * Called before any key is added, when every key to be added is known to lie in `[lo, hi]`,
     * `rows` keys in all (with repeats): keys of a range of at most 4 slots per row get the
     * direct table at once, and are never hashed; other keys get room for `rows` keys, so that
     * the table does not grow key by key.
     */
    def expect(lo: Long, hi: Long, rows: Int): Unit = {
      require(count == 0, "expect comes before the first key")
      val directly =
        lo <= hi && BigInt(hi) - BigInt(lo) + 1 <= DirectSlotsPerKey * BigInt(rows).max(1)
      if (!(directly && direct(lo, hi)) && rows <= (1 << 26)) {
        // At most half full: a power of two of at least 2 slots per key, 2 longs per slot.
        slots = new Array[Long](4 * Integer.highestOneBit(math.max(8, 2 * rows - 1)))
      }
    }

    def get(key: UnsafeRow): Int = getValue(IntegralColumn.read(key, 0, width))

    /** The number of the group of key `value`, or -1 if no group has it. */
    def getValue(value: Long): Int =
      if (dense == null) slots(find(value) + 1).toInt - 1
      else {
        val i = value - min
        if (i >= 0 && i < dense.length) dense(i.toInt) else -1
      }

    override def keys(keys: Seq[Expression]): GroupKey = keys match {
      case Seq(column: BoundReference) if IntegralColumn.width(column.dataType) == width =>
        new GroupKey.Column(this, column.ordinal, width)
      case _ => super.keys(keys)
    }

    def size: Int = count

    /**
     * Keys within a range of at most 4 slots per key (such as surrogate keys) get a direct
     * table: a lookup reads one entry of an array of 4 bytes per key value.
     */
    override def seal(): Unit = if (count > 0 && dense == null) {
      var (lo, hi) = (Long.MaxValue, Long.MinValue)
      var i = 0
      while (i < slots.length) {
        if (slots(i + 1) > 0) { lo = math.min(lo, slots(i)); hi = math.max(hi, slots(i)) }
        i += 2
      }
      val hashed = slots
      if (BigInt(hi) - BigInt(lo) + 1 <= DirectSlotsPerKey * BigInt(count) && direct(lo, hi)) {
        i = 0
        while (i < hashed.length) {
          if (hashed(i + 1) > 0) dense((hashed(i) - lo).toInt) = hashed(i + 1).toInt - 1
          i += 2
        }
      }
    }

    /**
     * Switches to a direct table of the keys `[lo, hi]`, none with a group yet, unless the range
     * is too wide for one array: whether it did.
     */
    private def direct(lo: Long, hi: Long): Boolean =
      BigInt(hi) - BigInt(lo) < Int.MaxValue / 2 && {
        min = lo
        dense = Array.fill((hi - lo + 1).toInt)(-1)
        slots = null
        true
      }

    /** The index of the slot that holds `value`, or of the empty slot where it would go. */
    private def find(value: Long): Int = {
      val mask = slots.length / 2 - 1
      var slot = (java.lang.Long.rotateLeft(value * 0x9e3779b97f4a7c15L, 32) & mask).toInt
      while (slots(2 * slot + 1) > 0 && slots(2 * slot) != value) slot = (slot + 1) & mask
      2 * slot
    }

    private def grow(): Unit = {
      val old = slots
      slots = new Array[Long](old.length * 2)
      var i = 0
      while (i < old.length) {
        if (old(i + 1) > 0) {
          val slot = find(old(i))
          slots(slot) = old(i)
          slots(slot + 1) = old(i + 1)
        }
        i += 2
      }
    }
  }
}
