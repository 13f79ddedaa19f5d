package rangejoin.planning

import org.apache.spark.sql.catalyst.expressions.Attribute
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, Project}

/**
 * A projection that only keeps columns of its input, neither computing nor renaming any: the
 * columns the plan above reads. A join node that writes its own output rows can take them over
 * ([[rangejoin.execution.ProjectedOutput]]) and write only those, as Spark's generated join code
 * writes no column that nothing reads.
 */
object KeptColumns {

  /** The kept columns, in the projection's order, and the projection's input. */
  def unapply(plan: LogicalPlan): Option[(Seq[Attribute], LogicalPlan)] = plan match {
    case Project(list, child) if list.forall(_.isInstanceOf[Attribute]) =>
      Some((list.map(_.asInstanceOf[Attribute]), child))
    case _ => None
  }
}
