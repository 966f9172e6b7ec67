import type { TaggedFieldsCarrier, Uuid } from '@kraft/protocol';
import { MetadataReplayError } from '../errors/metadata-replay-error.js';
import { MetadataRecordType } from '../records/metadata-record-type.js';
import type { PartitionChangeRecordData } from '../records/partition-change-record.js';
import type { PartitionRecordData } from '../records/partition-record.js';
import { type ApiMessageAndVersionOf, apiMessageAndVersion } from '../serde/api-message-and-version.js';
import { DIRECTORY_MIGRATING, DIRECTORY_UNASSIGNED } from './directory-id.js';
import type { ImageWriterOptions } from './image-writer-options.js';
import { NO_DIRECTORIES, NO_REPLICAS, type PartitionListInterner } from './partition-list-interner.js';
import type { PartitionRegistration } from './topics-image.js';

/** PartitionChangeRecord.leader when the leader does not change. */
export const NO_LEADER_CHANGE = -2;
/** PartitionChangeRecord.leaderRecoveryState when it does not change. */
const NO_RECOVERY_STATE_CHANGE = -1;
/** Kafka's `LeaderRecoveryState`: RECOVERED 0, RECOVERING 1. */
const MAX_LEADER_RECOVERY_STATE = 1;

/** A PartitionChangeRecord that changes only what `change` names (every other field "unchanged"). */
export function partitionChange(
  topicId: Uuid,
  partitionId: number,
  change: Partial<PartitionChangeRecordData> = {},
): PartitionChangeRecordData {
  return {
    partitionId,
    topicId,
    isr: null,
    leader: NO_LEADER_CHANGE,
    replicas: null,
    removingReplicas: null,
    addingReplicas: null,
    leaderRecoveryState: NO_RECOVERY_STATE_CHANGE,
    directories: null,
    eligibleLeaderReplicas: null,
    lastKnownElr: null,
    ...change,
  };
}

/**
 * The registration a PartitionRecord describes. As Kafka's `PartitionRegistration` does, a record
 * without directories (before version 1) gets MIGRATING for every replica, and a null ELR or last
 * known ELR becomes empty.
 *
 * An image holds a million of these, so each is kept small: one object with a fixed shape (no
 * spread of the decoded record), the topic's own id object instead of the record's copy, and
 * every list interned (`PartitionListInterner`): equal lists are one array, empty lists one
 * frozen array.
 */
export function registrationOf(
  record: PartitionRecordData,
  topicId: Uuid,
  lists: PartitionListInterner,
): PartitionRegistration {
  checkRecoveryState(record.leaderRecoveryState);
  const replicas = lists.replicas(record.replicas);
  const directories =
    record.directories.length === 0 && replicas.length > 0
      ? lists.directories(replicas.map(() => DIRECTORY_MIGRATING))
      : lists.directories(record.directories);
  checkDirectories(replicas, directories);
  return registration(
    {
      partitionId: record.partitionId,
      topicId,
      replicas,
      isr: lists.replicas(record.isr),
      removingReplicas: lists.replicas(record.removingReplicas),
      addingReplicas: lists.replicas(record.addingReplicas),
      leader: record.leader,
      leaderRecoveryState: record.leaderRecoveryState,
      leaderEpoch: record.leaderEpoch,
      partitionEpoch: record.partitionEpoch,
      directories,
      eligibleLeaderReplicas: lists.replicas(record.eligibleLeaderReplicas ?? NO_REPLICAS),
      lastKnownElr: lists.replicas(record.lastKnownElr ?? NO_REPLICAS),
    },
    record,
  );
}

/**
 * Kafka's `PartitionRegistration.merge`: every non-null part of the change replaces the current
 * one, a new leader bumps the leader epoch, and every change bumps the partition epoch. New
 * replicas without directories keep the directories of replicas they already had and get
 * UNASSIGNED otherwise.
 */
export function mergePartitionChange(
  current: PartitionRegistration,
  change: PartitionChangeRecordData,
  lists: PartitionListInterner,
): PartitionRegistration {
  const replicas = change.replicas === null ? current.replicas : lists.replicas(change.replicas);
  const isr = change.isr === null ? current.isr : lists.replicas(change.isr);
  const directories =
    change.directories === null
      ? change.replicas === null
        ? current.directories
        : lists.directories(carriedDirectories(current, change.replicas))
      : lists.directories(change.directories);
  checkDirectories(replicas, directories);
  const leaderChanged = change.leader !== NO_LEADER_CHANGE;
  let leaderRecoveryState = current.leaderRecoveryState;
  if (change.leaderRecoveryState !== NO_RECOVERY_STATE_CHANGE) {
    checkRecoveryState(change.leaderRecoveryState);
    leaderRecoveryState = change.leaderRecoveryState;
  }
  return registration(
    {
      partitionId: current.partitionId,
      topicId: current.topicId,
      replicas,
      isr,
      removingReplicas:
        change.removingReplicas === null ? current.removingReplicas : lists.replicas(change.removingReplicas),
      addingReplicas:
        change.addingReplicas === null ? current.addingReplicas : lists.replicas(change.addingReplicas),
      leader: leaderChanged ? change.leader : current.leader,
      leaderRecoveryState,
      leaderEpoch: leaderChanged ? current.leaderEpoch + 1 : current.leaderEpoch,
      partitionEpoch: current.partitionEpoch + 1,
      directories,
      eligibleLeaderReplicas:
        change.eligibleLeaderReplicas === null
          ? (current.eligibleLeaderReplicas ?? NO_REPLICAS)
          : lists.replicas(change.eligibleLeaderReplicas),
      lastKnownElr:
        change.lastKnownElr === null
          ? (current.lastKnownElr ?? NO_REPLICAS)
          : lists.replicas(change.lastKnownElr),
    },
    current,
  );
}

/**
 * Every registration is built from one literal in one field order, so all share one hidden class
 * with the fields stored in the object. Unknown tagged fields (rare: a newer writer) are carried
 * over from `source` so they are written back unchanged.
 */
function registration(fields: RegistrationFields, source: TaggedFieldsCarrier): PartitionRegistration {
  const unknown = source.unknownTaggedFields;
  // The lists are shared between registrations and never mutated, as the image's contract says.
  if (unknown === undefined || unknown.length === 0) return fields as PartitionRegistration;
  return { ...fields, unknownTaggedFields: unknown } as PartitionRegistration;
}

/** A registration's fields with its lists typed read-only, as they are shared. */
type RegistrationFields = {
  readonly [K in Exclude<
    keyof PartitionRegistration,
    keyof TaggedFieldsCarrier
  >]-?: PartitionRegistration[K] extends (infer E)[]
    ? readonly E[]
    : PartitionRegistration[K] extends (infer E)[] | null
      ? readonly E[] | null
      : PartitionRegistration[K];
};

/**
 * The PartitionRecord that recreates `partition`, at the version `options` selects (Kafka's
 * `PartitionRegistration.toRecord`). Before directory assignment, directories are left out, and
 * any that is not MIGRATING is a loss; before ELR support the ELRs are left out (Kafka drops them
 * silently: they are rebuilt from the ISR). Empty ELRs are left out at every version, as Kafka
 * writes them, so the tagged fields take no bytes.
 */
export function partitionRecordOf(
  partition: PartitionRegistration,
  options: ImageWriterOptions,
): ApiMessageAndVersionOf<typeof MetadataRecordType.PARTITION_RECORD> {
  let directories: readonly Uuid[] = partition.directories;
  if (!options.isDirectoryAssignmentSupported()) {
    if (directories.some((directory) => !directory.equals(DIRECTORY_MIGRATING))) {
      options.handleLoss('the directory assignment state of one or more replicas');
    }
    directories = NO_DIRECTORIES;
  }
  const elrSupported = options.isElrSupported();
  const data = {
    partitionId: partition.partitionId,
    topicId: partition.topicId,
    replicas: partition.replicas,
    isr: partition.isr,
    removingReplicas: partition.removingReplicas,
    addingReplicas: partition.addingReplicas,
    leader: partition.leader,
    leaderRecoveryState: partition.leaderRecoveryState,
    leaderEpoch: partition.leaderEpoch,
    partitionEpoch: partition.partitionEpoch,
    directories,
    eligibleLeaderReplicas: elrSupported ? nonEmptyOrNull(partition.eligibleLeaderReplicas) : null,
    lastKnownElr: elrSupported ? nonEmptyOrNull(partition.lastKnownElr) : null,
  } as PartitionRecordData;
  if (partition.unknownTaggedFields !== undefined) data.unknownTaggedFields = partition.unknownTaggedFields;
  return apiMessageAndVersion(MetadataRecordType.PARTITION_RECORD, options.partitionRecordVersion(), data);
}

function nonEmptyOrNull(replicas: readonly number[] | null): number[] | null {
  return replicas === null || replicas.length === 0 ? null : (replicas as number[]);
}

function carriedDirectories(current: PartitionRegistration, replicas: readonly number[]): Uuid[] {
  const byReplica = new Map<number, Uuid>();
  current.replicas.forEach((replica, index) => {
    const directory = current.directories[index];
    if (directory !== undefined) byReplica.set(replica, directory);
  });
  return replicas.map((replica) => byReplica.get(replica) ?? DIRECTORY_UNASSIGNED);
}

function checkDirectories(replicas: readonly number[], directories: readonly Uuid[]): void {
  if (directories.length !== replicas.length) {
    throw new MetadataReplayError(
      `a partition has ${replicas.length} replicas but ${directories.length} directories`,
    );
  }
}

function checkRecoveryState(state: number): void {
  if (state < 0 || state > MAX_LEADER_RECOVERY_STATE) {
    throw new MetadataReplayError(`invalid leader recovery state ${state}`);
  }
}
