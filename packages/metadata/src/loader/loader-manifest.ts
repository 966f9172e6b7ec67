import type { LeaderAndEpoch } from '@kraft/raft';
import type { MetadataProvenance } from '../image/metadata-provenance.js';

/** What a log delta covered (Kafka's `LogDeltaManifest`). */
export interface LogDeltaManifest {
  readonly type: 'log-delta';
  readonly provenance: MetadataProvenance;
  readonly leaderAndEpoch: LeaderAndEpoch;
  readonly numBatches: number;
  readonly elapsedNs: number;
  /** The size of the batches the delta came from: what the snapshot byte trigger counts. */
  readonly numBytes: number;
}

/**
 * A whole image: a snapshot was loaded, or a publisher was installed (Kafka's `SnapshotManifest`).
 * The delta that comes with it starts from the empty image.
 */
export interface SnapshotManifest {
  readonly type: 'snapshot';
  readonly provenance: MetadataProvenance;
  readonly elapsedNs: number;
}

/** What an update covered: a log delta or a whole image (`type` tells which). */
export type LoaderManifest = LogDeltaManifest | SnapshotManifest;
