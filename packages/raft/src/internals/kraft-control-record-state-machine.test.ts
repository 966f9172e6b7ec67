import { IllegalStateError, Uuid } from '@kraft/protocol';
import {
  buildControlBatch,
  buildKRaftVersionBatch,
  buildVotersBatch,
  ControlRecordType,
  FileRecords,
  MemoryFileSystem,
  type MemoryRecords,
  MemoryRecordsBuilder,
} from '@kraft/records';
import { describe, expect, it, vi } from 'vitest';
import { MockLog } from '../../test/kit/mock-log.js';
import { Endpoints } from '../endpoints.js';
import { NonOverlappingVoterSetError } from '../errors/non-overlapping-voter-set-error.js';
import type { LogFetchInfo, OffsetAndEpoch } from '../ports/raft-log.js';
import { ReplicaKey } from '../replica-key.js';
import { type VoterNode, VoterSet } from '../voter-set.js';
import {
  type ControlRecordLog,
  KRaftControlRecordStateMachine,
} from './kraft-control-record-state-machine.js';

const EPOCH = 1;

function voter(id: number): VoterNode {
  return {
    voterKey: ReplicaKey.of(id, Uuid.fromLongs(BigInt(id), 7n)),
    listeners: Endpoints.fromEntries([['CONTROLLER', { host: `node-${id}`, port: 9000 + id }]]),
    supportedKRaftVersion: { minVersion: 0, maxVersion: 1 },
  };
}

function votersOf(...ids: number[]): VoterSet {
  return VoterSet.fromNodes(ids.map(voter));
}

const STATIC = VoterSet.fromIds([1, 2, 3]);

function at(log: MockLog) {
  return { baseOffset: log.endOffset(), partitionLeaderEpoch: EPOCH, timestamp: 0 };
}

function appendVoters(log: MockLog, voters: VoterSet): number {
  return log.appendAsLeader(buildVotersBatch(at(log), voters.toVotersRecord()), EPOCH).firstOffset;
}

function appendKRaftVersion(log: MockLog, kraftVersion: number): number {
  return log.appendAsLeader(
    buildKRaftVersionBatch(at(log), { version: 0, kRaftVersion: kraftVersion }),
    EPOCH,
  ).firstOffset;
}

function appendData(log: MockLog, count: number): void {
  const builder = new MemoryRecordsBuilder({ baseOffset: log.endOffset(), partitionLeaderEpoch: EPOCH });
  for (let index = 0; index < count; index += 1) builder.append({ timestamp: 0, value: Buffer.from('x') });
  log.appendAsLeader(builder.build(), EPOCH);
}

/** A snapshot laid out as Kafka's writer does: header (+ KRaftVersion + Voters) batch, data, footer. */
function writeSnapshot(
  log: MockLog,
  snapshotId: OffsetAndEpoch,
  voters: VoterSet | undefined,
  dataRecords = 0,
): void {
  const options = (baseOffset: number) => ({
    baseOffset,
    partitionLeaderEpoch: snapshotId.epoch,
    timestamp: 0,
  });
  const header: Parameters<typeof buildControlBatch>[1][number][] = [
    { type: ControlRecordType.SNAPSHOT_HEADER, message: { version: 0, lastContainedLogTimestamp: 0n } },
  ];
  if (voters !== undefined) {
    header.push(
      { type: ControlRecordType.KRAFT_VERSION, message: { version: 0, kRaftVersion: 1 } },
      { type: ControlRecordType.KRAFT_VOTERS, message: voters.toVotersRecord() },
    );
  }
  const batches: MemoryRecords[] = [buildControlBatch(options(0), header)];
  let next = header.length;
  if (dataRecords > 0) {
    const builder = new MemoryRecordsBuilder({ baseOffset: next, partitionLeaderEpoch: snapshotId.epoch });
    for (let index = 0; index < dataRecords; index += 1)
      builder.append({ timestamp: 0, value: Buffer.from('d') });
    batches.push(builder.build());
    next += dataRecords;
  }
  batches.push(
    buildControlBatch(options(next), [{ type: ControlRecordType.SNAPSHOT_FOOTER, message: { version: 0 } }]),
  );
  const writer = log.createNewSnapshotUnchecked(snapshotId);
  if (writer === undefined) throw new Error(`snapshot ${snapshotId.offset}-${snapshotId.epoch} exists`);
  for (const batch of batches) writer.append(batch);
  writer.freeze();
}

function stateMachineOver(log: ControlRecordLog): KRaftControlRecordStateMachine {
  return new KRaftControlRecordStateMachine({ staticVoterSet: STATIC, log });
}

/** A log with voters {1, 2, 3} then {1, 2, 3, 4}, read whole: `cut` is the second record's offset. */
function logWithOneVoterAdded() {
  const log = new MockLog();
  const first = votersOf(1, 2, 3);
  appendVoters(log, first);
  const cut = appendVoters(log, votersOf(1, 2, 3, 4));
  const state = stateMachineOver(log);
  state.updateState();
  return { log, first, cut, state };
}

describe('KRaftControlRecordStateMachine', () => {
  it('answers the static voters and kraft.version 0 for an empty log', () => {
    const log = new MockLog();
    const state = stateMachineOver(log);
    state.updateState();
    expect(state.lastVoterSet()).toBe(STATIC);
    expect(state.lastKRaftVersion()).toBe(0);
    expect(state.lastVoterSetOffset()).toBeUndefined();
  });

  it('reads VotersRecord and KRaftVersionRecord up to the log end, uncommitted ones included', () => {
    const log = new MockLog();
    const kraftVersionOffset = appendKRaftVersion(log, 1);
    const voters = votersOf(4, 5, 6);
    const votersOffset = appendVoters(log, voters);
    expect(log.highWatermark()).toBe(0);
    const state = stateMachineOver(log);
    state.updateState();
    expect(state.lastVoterSet().equals(voters)).toBe(true);
    expect(state.lastVoterSetOffset()).toBe(votersOffset);
    expect(state.voterSetAtOffset(votersOffset - 1)).toBe(STATIC);
    expect(state.voterSetAtOffset(votersOffset).equals(voters)).toBe(true);
    expect(state.kraftVersionAtOffset(kraftVersionOffset)).toBe(1);
    expect(state.lastKRaftVersion()).toBe(1);
    expect(state.nextOffsetToRead()).toBe(log.endOffset());
  });

  it('reads incrementally as the log grows, from where it stopped', () => {
    const log = new MockLog();
    appendVoters(log, votersOf(1, 2, 3));
    appendData(log, 5);
    const state = stateMachineOver(log);
    state.updateState();
    const read = vi.spyOn(log, 'read');
    state.updateState();
    expect(read).not.toHaveBeenCalled();
    const grownFrom = log.endOffset();
    const added = votersOf(1, 2, 3, 4);
    const offset = appendVoters(log, added);
    state.updateState();
    expect(read.mock.calls.map((call) => call[0])).toEqual([grownFrom]);
    expect(read.mock.calls[0]?.[1]).toBe('uncommitted');
    expect(state.lastVoterSet().equals(added)).toBe(true);
    expect(state.lastVoterSetOffset()).toBe(offset);
  });

  it('refuses a VotersRecord that changes two voters at once', () => {
    const log = new MockLog();
    appendVoters(log, votersOf(1, 2, 3));
    appendVoters(log, votersOf(1, 2, 3, 4, 5));
    const state = stateMachineOver(log);
    expect(() => state.updateState()).toThrow(NonOverlappingVoterSetError);
  });

  it('truncateNewEntries restores the older set, and the regrown tail is read again', () => {
    const { log, first, cut, state } = logWithOneVoterAdded();
    log.truncateTo(cut);
    state.truncateNewEntries(cut);
    expect(state.lastVoterSet().equals(first)).toBe(true);
    // A new leader's tail at the same offset: another change, read although it sits below the
    // offset read up to before the cut.
    const other = votersOf(1, 2);
    expect(appendVoters(log, other)).toBe(cut);
    state.updateState();
    expect(state.lastVoterSet().equals(other)).toBe(true);
    log.truncateTo(0);
    state.truncateNewEntries(0);
    expect(state.lastVoterSet()).toBe(STATIC);
  });

  it('notices on its own a log that ends below what it read', () => {
    const { log, first, cut, state } = logWithOneVoterAdded();
    log.truncateTo(cut);
    state.updateState();
    expect(state.lastVoterSet().equals(first)).toBe(true);
    expect(state.nextOffsetToRead()).toBe(cut);
  });

  it('loads the latest snapshot at the first update, then the log after it', () => {
    const log = new MockLog();
    const snapshotVoters = votersOf(4, 5, 6);
    writeSnapshot(log, { offset: 10, epoch: EPOCH }, snapshotVoters, 3);
    expect(log.truncateToLatestSnapshot()).toBe(true);
    const added = votersOf(4, 5, 6, 7);
    const offset = appendVoters(log, added);
    const state = stateMachineOver(log);
    state.updateState();
    expect(state.lastVoterSet().equals(added)).toBe(true);
    expect(state.voterSetAtOffset(9).equals(snapshotVoters)).toBe(true);
    expect(state.voterSetAtOffset(offset).equals(added)).toBe(true);
    expect(state.kraftVersionAtOffset(9)).toBe(1);
  });

  it('starts from the bootstrap checkpoint 0-0, whose voters hold from offset -1', () => {
    const log = new MockLog();
    const bootstrap = votersOf(1, 2, 3);
    writeSnapshot(log, { offset: 0, epoch: 0 }, bootstrap);
    const state = stateMachineOver(log);
    state.updateState();
    expect(state.lastVoterSet().equals(bootstrap)).toBe(true);
    expect(state.lastVoterSetOffset()).toBe(-1);
    expect(state.lastKRaftVersion()).toBe(1);
    expect(state.nextOffsetToRead()).toBe(0);
    // The first leader writes the set into the log: now it is at a log offset (Kafka's sign
    // that the checkpoint's set has been written), and a later update reads no snapshot again.
    const offset = appendVoters(log, bootstrap);
    const readSnapshot = vi.spyOn(log, 'readSnapshot');
    state.updateState();
    expect(state.lastVoterSetOffset()).toBe(offset);
    expect(readSnapshot).not.toHaveBeenCalled();
  });

  it('reloads from a fetched snapshot that replaced the log past what it read', () => {
    const log = new MockLog();
    appendVoters(log, votersOf(1, 2, 3));
    const state = stateMachineOver(log);
    state.updateState();
    const snapshotVoters = votersOf(7, 8, 9);
    writeSnapshot(log, { offset: 50, epoch: 3 }, snapshotVoters);
    expect(log.truncateToLatestSnapshot()).toBe(true);
    state.updateState();
    expect(state.lastVoterSet().equals(snapshotVoters)).toBe(true);
    expect(state.lastVoterSetOffset()).toBe(49);
    expect(state.nextOffsetToRead()).toBe(50);
  });

  it('keeps the set in force at a new log start moved by retention, and drops older ones', () => {
    const log = new MockLog();
    const first = votersOf(1, 2, 3);
    const firstOffset = appendVoters(log, first);
    appendData(log, 4);
    const second = votersOf(1, 2, 3, 4);
    appendVoters(log, second);
    const snapshotOffset = log.endOffset();
    appendData(log, 2);
    log.updateHighWatermark(log.endOffset());
    const state = stateMachineOver(log);
    state.updateState();
    writeSnapshot(log, { offset: snapshotOffset, epoch: EPOCH }, second);
    expect(log.deleteBeforeSnapshot({ offset: snapshotOffset, epoch: EPOCH })).toBe(true);
    const readSnapshot = vi.spyOn(log, 'readSnapshot');
    state.updateState();
    // Retention keeps the log from the snapshot on: no snapshot read, the old entry goes.
    expect(readSnapshot).not.toHaveBeenCalled();
    expect(state.voterSetAtOffset(snapshotOffset).equals(second)).toBe(true);
    expect(state.voterSetAtOffset(firstOffset)).toBe(STATIC);
  });

  it('refuses to answer for an offset it has not read', () => {
    const log = new MockLog();
    appendVoters(log, votersOf(1, 2, 3));
    const state = stateMachineOver(log);
    expect(() => state.voterSetAtOffset(0)).toThrow(IllegalStateError);
    state.updateState();
    expect(() => state.voterSetAtOffset(1)).toThrow(IllegalStateError);
    expect(() => state.kraftVersionAtOffset(1)).toThrow(IllegalStateError);
  });

  it('has an uncommitted voter change while the last VotersRecord is at or above the high watermark', () => {
    const log = new MockLog();
    const offset = appendVoters(log, votersOf(1, 2, 3));
    const state = stateMachineOver(log);
    state.updateState();
    expect(state.hasUncommittedVoterChange(offset)).toBe(true);
    expect(state.hasUncommittedVoterChange(offset + 1)).toBe(false);
    expect(stateMachineOver(new MockLog()).hasUncommittedVoterChange(0)).toBe(false);
  });

  it('never reads a byte past the end of the slice the log returns', () => {
    // A file holding two VotersRecord batches, of which the log's end covers the first only (the
    // second is past the end the log reports, as bytes of a preallocated or a concurrently
    // appended segment are).
    const fileSystem = new MemoryFileSystem();
    const file = FileRecords.open('/segment.log', { fileSystem });
    const first = votersOf(1, 2, 3);
    const firstBatch = buildVotersBatch(
      { baseOffset: 0, partitionLeaderEpoch: EPOCH, timestamp: 0 },
      first.toVotersRecord(),
    );
    file.append(firstBatch);
    file.append(
      buildVotersBatch(
        { baseOffset: 1, partitionLeaderEpoch: EPOCH, timestamp: 0 },
        votersOf(1, 2, 3, 4).toVotersRecord(),
      ),
    );
    const sliceSize = firstBatch.sizeInBytes();
    const slice = file.slice(0, sliceSize);
    const readInto = vi.spyOn(slice, 'readInto');
    const log: ControlRecordLog = {
      startOffset: () => 0,
      endOffset: () => 1,
      latestSnapshotId: () => undefined,
      readSnapshot: () => undefined,
      read: (): LogFetchInfo => ({
        records: slice,
        startOffsetMetadata: { offset: 0, segmentBaseOffset: 0, relativePositionBytes: 0 },
      }),
    };
    const state = stateMachineOver(log);
    state.updateState();
    expect(state.lastVoterSet().equals(first)).toBe(true);
    expect(readInto).toHaveBeenCalled();
    for (const [target, position] of readInto.mock.calls) {
      expect(position + target.length).toBeLessThanOrEqual(sliceSize);
    }
  });
});
