package org.apache.spark.sql.execution.rangejoin

import java.io.File
import java.nio.charset.StandardCharsets
import java.nio.file.{Files, NoSuchFileException}

import org.apache.spark.SparkEnv

/**
 * The files Spark keeps on local disk for this JVM's block manager, read as they are on disk: in
 * this package because the block manager's directories are private to Spark.
 */
object LocalDiskFiles {

  /** A file's name, its length, and whether its bytes hold the marker looked for. */
  final case class Scanned(name: String, length: Long, holdsMarker: Boolean)

  /**
   * The spill files (`temp_local_*`) and blocks on disk (`rdd_*`) of the block manager now, each
   * with whether its bytes hold the ASCII string `marker` (as an unsafe row holds a string). A
   * file deleted while it is read is left out.
   */
  def scan(marker: String): Seq[Scanned] = {
    val files: Seq[File] = SparkEnv.get.blockManager.diskBlockManager.getAllFiles()
    files
      .filter(f => f.getName.startsWith("temp_local_") || f.getName.startsWith("rdd_"))
      .flatMap { file =>
        try {
          val bytes = Files.readAllBytes(file.toPath)
          val text = new String(bytes, StandardCharsets.ISO_8859_1) // one char per byte
          Some(Scanned(file.getName, bytes.length.toLong, text.contains(marker)))
        } catch { case _: NoSuchFileException => None }
      }
  }
}
