package org.apache.spark.sql.execution.rangejoin

import org.apache.spark.util.collection.unsafe.sort.UnsafeExternalSorter

/** Spark 3.5 to 4.0: the external sorter spills by record count and memory pressure only. */
private[rangejoin] object SorterArguments {
  // Spark's arguments in its order, packed: the shims differ only at the end.
  // format: off
  def create(s: SorterSetup): UnsafeExternalSorter = UnsafeExternalSorter.create(s.memory,
    s.blockManager, s.serializerManager, s.context, s.records, s.prefix, s.initialSize,
    s.pageBytes, s.spillRows, false)
  // format: on
}
