package rangejoin

import scala.collection.mutable.ArrayBuffer

import org.apache.logging.log4j.{Level, LogManager}
import org.apache.logging.log4j.core.{LogEvent, Logger => CoreLogger}
import org.apache.logging.log4j.core.appender.AbstractAppender
import org.apache.logging.log4j.core.config.Property

/** The messages logged while a block of a test runs, for tests of what users read in the log. */
object LogCapture {

  /**
   * Runs `body` with the loggers `names` at `level` or finer, and returns what they logged at
   * `level` or above (with the body's result). The loggers' levels are restored after.
   */
  def capture[T](level: Level, names: String*)(body: => T): (T, Seq[String]) = {
    val messages = ArrayBuffer.empty[String]
    val appender =
      new AbstractAppender("rangejoin-test-capture", null, null, true, Property.EMPTY_ARRAY) {
        override def append(event: LogEvent): Unit =
          if (event.getLevel.isMoreSpecificThan(level)) {
            messages.synchronized(messages += event.getMessage.getFormattedMessage)
          }
      }
    appender.start()
    val loggers = names.map(name => LogManager.getLogger(name).asInstanceOf[CoreLogger])
    val levels = loggers.map(_.getLevel)
    loggers.foreach { logger =>
      logger.addAppender(appender)
      if (!logger.getLevel.isLessSpecificThan(level)) logger.setLevel(level)
    }
    try {
      val result = body
      (result, messages.synchronized(messages.toList))
    } finally {
      loggers.zip(levels).foreach { case (logger, previous) =>
        logger.removeAppender(appender)
        logger.setLevel(previous)
      }
      appender.stop()
    }
  }
}
