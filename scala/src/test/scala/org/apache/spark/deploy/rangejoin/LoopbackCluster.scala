package org.apache.spark.deploy.rangejoin

import org.apache.spark.SparkConf
import org.apache.spark.deploy.master.Master
import org.apache.spark.deploy.worker.Worker
import org.apache.spark.internal.config
import org.apache.spark.rpc.RpcEnv

/**
 * A standalone master and one worker per host of `hosts` in this JVM, as a `local-cluster`
 * master runs them, except that each worker, and so its executor, is on a host of its own: a
 * loopback address (127.0.0.1, 127.0.0.2, ...). Spark's scheduler never runs a speculative copy
 * of a task on a host where an attempt of it runs, and every executor of a `local-cluster` is on
 * the same host; on these, a copy runs on the other worker's executor.
 *
 * Workers launch executors as a local-cluster's do (see `rangejoin.faults.FaultSessions`). In
 * this package because Spark's master and worker are private to Spark's deploy package.
 */
final class LoopbackCluster(hosts: Seq[String], coresPerWorker: Int, memoryMbPerWorker: Int) {
  private val conf = new SparkConf(loadDefaults = false)
    .set(config.MASTER_REST_SERVER_ENABLED, false)
    .set(config.SHUFFLE_SERVICE_ENABLED, false)

  private val master: RpcEnv = Master.startRpcEnvAndEndpoint(hosts.head, 0, 0, conf)._1

  /** The master's URL, for the driver. */
  val url: String = s"spark://${hosts.head}:${master.address.port}"

  private val workers: Seq[RpcEnv] = hosts.zipWithIndex.map { case (host, i) =>
    Worker.startRpcEnvAndEndpoint(
      host,
      0,
      0,
      coresPerWorker,
      memoryMbPerWorker,
      Array(url),
      null,
      Some(i + 1),
      conf
    )
  }

  /** Stops the workers, then the master (so that the workers do not see it go). */
  def stop(): Unit =
    (workers :+ master).foreach { env =>
      env.shutdown()
      env.awaitTermination()
    }
}

object LoopbackCluster {

  /**
   * Whether this machine can bind to each of `hosts` (Linux routes all of 127.0.0.0/8 to the
   * loopback interface; macOS only 127.0.0.1 unless others are aliased).
   */
  def bindable(hosts: Seq[String]): Boolean = hosts.forall { host =>
    try {
      val socket = new java.net.ServerSocket(0, 1, java.net.InetAddress.getByName(host))
      socket.close()
      true
    } catch { case _: java.io.IOException => false }
  }
}
