import type { Uuid } from '@kraft/protocol';
import { MetadataReplayError } from '../errors/metadata-replay-error.js';
import type { PartitionChangeRecordData } from '../records/partition-change-record.js';
import type { PartitionRecordData } from '../records/partition-record.js';
import { DIRECTORY_MIGRATING, DIRECTORY_UNASSIGNED, type PartitionRegistration } from './topics-image.js';

/** PartitionChangeRecord.leader when the leader does not change. */
export const NO_LEADER_CHANGE = -2;
/** PartitionChangeRecord.leaderRecoveryState when it does not change. */
const NO_RECOVERY_STATE_CHANGE = -1;
/** Kafka's `LeaderRecoveryState`: RECOVERED 0, RECOVERING 1. */
const MAX_LEADER_RECOVERY_STATE = 1;

const NO_REPLICAS: readonly number[] = Object.freeze([]);

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
 * known ELR becomes empty; empty lists share one frozen array.
 */
export function registrationOf(record: PartitionRecordData): PartitionRegistration {
  checkRecoveryState(record.leaderRecoveryState);
  const directories =
    record.directories.length === 0 && record.replicas.length > 0
      ? record.replicas.map(() => DIRECTORY_MIGRATING)
      : record.directories;
  checkDirectories(record.replicas, directories);
  return {
    ...record,
    removingReplicas: shared(record.removingReplicas),
    addingReplicas: shared(record.addingReplicas),
    directories,
    eligibleLeaderReplicas: shared(record.eligibleLeaderReplicas ?? NO_REPLICAS),
    lastKnownElr: shared(record.lastKnownElr ?? NO_REPLICAS),
  } as PartitionRegistration;
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
): PartitionRegistration {
  const replicas = change.replicas ?? current.replicas;
  const directories =
    change.directories ??
    (change.replicas === null ? current.directories : carriedDirectories(current, change.replicas));
  checkDirectories(replicas, directories);
  const leaderChanged = change.leader !== NO_LEADER_CHANGE;
  let leaderRecoveryState = current.leaderRecoveryState;
  if (change.leaderRecoveryState !== NO_RECOVERY_STATE_CHANGE) {
    checkRecoveryState(change.leaderRecoveryState);
    leaderRecoveryState = change.leaderRecoveryState;
  }
  return {
    ...current,
    replicas,
    directories,
    isr: change.isr ?? current.isr,
    removingReplicas: shared(change.removingReplicas ?? current.removingReplicas),
    addingReplicas: shared(change.addingReplicas ?? current.addingReplicas),
    leader: leaderChanged ? change.leader : current.leader,
    leaderEpoch: leaderChanged ? current.leaderEpoch + 1 : current.leaderEpoch,
    leaderRecoveryState,
    partitionEpoch: current.partitionEpoch + 1,
    eligibleLeaderReplicas: shared(
      change.eligibleLeaderReplicas ?? current.eligibleLeaderReplicas ?? NO_REPLICAS,
    ),
    lastKnownElr: shared(change.lastKnownElr ?? current.lastKnownElr ?? NO_REPLICAS),
  } as PartitionRegistration;
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

function shared(replicas: readonly number[]): readonly number[] {
  return replicas.length === 0 ? NO_REPLICAS : replicas;
}
