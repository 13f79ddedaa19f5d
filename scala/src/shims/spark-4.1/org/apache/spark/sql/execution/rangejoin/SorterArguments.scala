package org.apache.spark.sql.execution.rangejoin

import org.apache.spark.internal.config.{SHUFFLE_SPILL_MAX_SIZE_FORCE_SPILL_THRESHOLD => SpillBytes}
import org.apache.spark.util.collection.unsafe.sort.UnsafeExternalSorter

/** Spark 4.1: the external sorter also spills past a size in bytes. */
private[rangejoin] object SorterArguments {
  // Spark's arguments in its order, packed: the shims differ only at the end.
  // format: off
  def create(s: SorterSetup): UnsafeExternalSorter = UnsafeExternalSorter.create(s.memory,
    s.blockManager, s.serializerManager, s.context, s.records, s.prefix, s.initialSize,
    s.pageBytes, s.spillRows, s.conf.get(SpillBytes), false)
  // format: on
}
