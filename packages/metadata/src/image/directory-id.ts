import { Uuid } from '@kraft/protocol';

/** Kafka's `DirectoryId.MIGRATING`: the replica's directory predates directory assignment. */
export const DIRECTORY_MIGRATING = Uuid.fromLongs(0n, 2n);
/** Kafka's `DirectoryId.UNASSIGNED`: a new replica not yet placed in a directory. */
export const DIRECTORY_UNASSIGNED = Uuid.ZERO;
