package rangejoin.execution.runtime

/**
 * One pass of a block join: which input streams, what it outputs for its rows, and whether
 * unmatched rows are NULL-padded even though the pass outputs no pairs ([[BlockJoinRuntime]]).
 */
final case class JoinPass(streamIsLeft: Boolean, emit: StreamEmit, padUnmatched: Boolean)
