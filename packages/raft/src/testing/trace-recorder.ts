/**
 * Where the simulated cluster writes its event trace: one line per event, fault and decision.
 * The simulator's own recorder hashes every line (equal hashes, equal runs); an embedder may keep
 * the lines to print on failure, or record nothing.
 */
export interface TraceRecorder {
  /** One trace line at simulated time `timeMs`. */
  record(timeMs: number, line: string): void;
}

/** A recorder that keeps nothing: the default when no trace is wanted. */
export const UNRECORDED_TRACE: TraceRecorder = Object.freeze({ record: () => {} });
