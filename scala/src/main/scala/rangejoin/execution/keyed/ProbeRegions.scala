package rangejoin.execution.keyed

/**
 * The positions of an [[AsOfIndex]] cut into regions of consecutive positions, each about
 * [[ProbeRegions.RegionBytes]] of the index: the order in which [[ProbeBatches]] puts probes.
 * The probes of one region read only that region's part of the index, which stays in the core's
 * cache while they run; probes taken in the order they arrive read the whole index at random
 * and, once it outgrows the cache, miss it at about every step.
 *
 * A probe's region is that of the position its group and code lead to: the group's start, for a
 * group that fits in a region; in a larger group, the position that the code's place between the
 * group's least and greatest code suggests, by interpolation. The region decides only the order
 * of the probes, never their answers, so an estimate is enough.
 *
 * @param indexBytes the bytes a lookup in the index may read, which the index's positions share
 */
final class ProbeRegions(index: AsOfIndex, indexBytes: Long) {
  private val positions = index.codes.length

  /** Positions per region, at least one. */
  private val span: Int = {
    val bytesPerPosition = math.max(1L, indexBytes / math.max(1, positions))
    val fitting = math.max(1L, ProbeRegions.RegionBytes / bytesPerPosition)
    val fewEnough = (positions.toLong + ProbeRegions.MaxRegions - 1) / ProbeRegions.MaxRegions
    math.max(fitting, fewEnough).toInt
  }

  /** The number of regions: one when the whole index fits in one. */
  val count: Int = math.max(1, (positions + span - 1) / span)

  /** The region of a probe of `group` with `code`, from 0 until [[count]]. */
  def of(group: Int, code: Long): Int = {
    // Plain values, not tuples: this runs for every probing row.
    val start = index.start(group)
    val end = index.end(group)
    val position =
      if (end - start <= span) start
      else {
        val least = index.codes(start)
        val greatest = index.codes(end - 1)
        if (code <= least) start
        else if (code >= greatest) end - 1
        else {
          val share = (code.toDouble - least.toDouble) / (greatest.toDouble - least.toDouble)
          math.min(end - 1, start + (share * (end - 1 - start)).toInt)
        }
      }
    position / span
  }
}

object ProbeRegions {

  /**
   * The bytes of the index per region: half the level-2 cache of a core of a common server CPU
   * (1 MiB), leaving the other half to the probes' own rows and the output.
   */
  val RegionBytes: Long = 512L << 10

  /** At most this many regions, so that reordering a batch writes through few streams. */
  val MaxRegions: Int = 1024
}
