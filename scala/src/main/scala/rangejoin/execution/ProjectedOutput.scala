package rangejoin.execution

import org.apache.spark.sql.catalyst.expressions.{Attribute, Expression}
import org.apache.spark.sql.catalyst.plans.physical.{
  Partitioning,
  PartitioningCollection,
  UnknownPartitioning
}
import org.apache.spark.sql.execution.SparkPlan

/**
 * A join node that may write only the columns a projection above it keeps
 * ([[rangejoin.planning.KeptColumns]]), the projection then folded into it: `columns`, else every
 * column its join type outputs (`joinOutput`).
 *
 * Invariant: `columns` are a subset of `joinOutput`, by expression id, and the node binds every
 * output row against `joinOutput`'s attributes, so dropping columns changes only which are
 * written. The node's partitioning loses the parts on dropped columns, as a projection's does.
 */
trait ProjectedOutput extends SparkPlan {

  /** The columns read above, or `None` for every column of the join. */
  def columns: Option[Seq[Attribute]]

  /** The columns of the join before any are dropped: both inputs', per the join type. */
  protected def joinOutput: Seq[Attribute]

  final override def output: Seq[Attribute] = columns.getOrElse(joinOutput)

  /** `partitioning`, of the join's columns, restated on the columns written. */
  protected def projected(partitioning: Partitioning): Partitioning =
    if (columns.isEmpty) partitioning
    else
      partitioning match {
        case PartitioningCollection(parts) =>
          parts.filter(written) match {
            case Seq() => UnknownPartitioning(partitioning.numPartitions)
            case Seq(one) => one
            case kept => PartitioningCollection(kept)
          }
        case p if written(p) => p
        case p => UnknownPartitioning(p.numPartitions)
      }

  private def written(partitioning: Partitioning): Boolean = partitioning match {
    case e: Expression => e.references.subsetOf(outputSet)
    case _ => true
  }

  /** The EXPLAIN field that says which columns the node writes. */
  protected def outputField: (String, String) =
    "Output" -> columns.fold("all columns") { kept =>
      s"only the columns read above [${kept.map(_.sql).mkString(", ")}]"
    }
}
