package rangejoin.execution.blocks

import org.apache.spark.TaskContext

/**
 * A task failure that the fault tests inject into the operators' tasks, to check that a task
 * retried after a failure gives the same rows and the same SQL metrics.
 *
 * Off unless the JVM starts with the system property `rangejoin.test.failFirstAttempt=true`
 * (the tests set it on executors only, through `spark.executor.extraJavaOptions`). The property
 * is read once per JVM, so an operator's task pays one read of a field and a branch.
 *
 * When on, attempt 0 of every task that calls [[failFirstAttempt]] fails after it has done all
 * of its work (read every row, added to every metric): from a task completion listener, so that
 * a task whose rows the generated code of a whole-stage stage reads fails the same way.
 */
object InjectedFailures {

  /** The system property that turns the failure on. */
  val Property = "rangejoin.test.failFirstAttempt"

  /** Whether this JVM fails the first attempt of the operators' tasks. */
  final val FailFirstAttempt: Boolean = java.lang.Boolean.getBoolean(Property)

  /**
   * When [[FailFirstAttempt]] is on and the current task is its attempt 0, makes the task fail
   * once it completes without another failure or a kill.
   */
  def failFirstAttempt(): Unit =
    if (FailFirstAttempt) {
      val context = TaskContext.get()
      if (context != null && context.attemptNumber() == 0) {
        var failed = false
        context.addTaskFailureListener((_, _) => failed = true)
        context.addTaskCompletionListener[Unit] { c =>
          if (!failed && !c.isInterrupted()) throw new InjectedFailure(c)
        }
      }
    }

  /** The failure of a task's first attempt. */
  final class InjectedFailure(context: TaskContext)
      extends RuntimeException(
        s"Injected failure of attempt 0 of task ${context.partitionId()} in stage " +
          s"${context.stageId()} ($Property)"
      )
}
