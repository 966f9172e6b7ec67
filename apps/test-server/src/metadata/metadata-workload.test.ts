import { silentLogger } from '@kraft/protocol';
import type { BatchReader, Listener } from '@kraft/raft';
import type { Batch } from '@kraft/records';
import { describe, expect, it } from 'vitest';
import { ManualScheduler } from '../../test/support/manual-scheduler.js';
import { CommitStats } from '../stats/commit-stats.js';
import { METADATA_DIGEST_PREFIX, METADATA_STATUS_PREFIX, MetadataWorkload } from './metadata-workload.js';

/** The timestamp, size and file position of a small control batch: fixed figures will do here. */
const CONTROL_BATCH_FIGURES = { appendTimestamp: 0, sizeInBytes: 80, position: 0 } as const;

/** A reader of one control batch (the epoch's LeaderChange at `offset`), as raft hands it out. */
class ControlBatchReader implements BatchReader {
  readonly baseOffset: number;
  readAll = false;
  closed = false;

  constructor(
    private readonly offset: number,
    private readonly epoch: number,
  ) {
    this.baseOffset = offset;
  }

  *[Symbol.iterator](): Iterator<Batch> {
    const [baseOffset, lastOffset, epoch] = [this.offset, this.offset, this.epoch];
    yield {
      isControl: true,
      controlRecords: [],
      records: [],
      baseOffset,
      lastOffset,
      epoch,
      ...CONTROL_BATCH_FIGURES,
    };
    this.readAll = true;
  }

  lastOffset(): number | undefined {
    return this.readAll ? this.offset : undefined;
  }

  close(): void {
    this.closed = true;
  }
}

/** The loader's queue runs on later event-loop turns. */
const loaderTurns = async (turns = 10) => {
  for (let turn = 0; turn < turns; turn += 1) await new Promise((resolve) => setImmediate(resolve));
};

function setup() {
  const listeners: Listener[] = [];
  const appends: number[] = [];
  const lines: string[] = [];
  const scheduler = new ManualScheduler();
  // The next offset: the epoch's LeaderChange goes there, appends after it.
  let highWatermark = 1;
  const workload = new MetadataWorkload({
    client: {
      register: (listener) => listeners.push(listener),
      highWatermark: () => highWatermark,
      createSnapshot: () => {
        throw new Error('no snapshot expected');
      },
    },
    appender: {
      scheduleAppend: (_epoch, records) => {
        appends.push(records.length);
        highWatermark += records.length;
        return highWatermark - 1;
      },
    },
    localNodeId: 1,
    throughputRecordsPerSecond: 1000,
    seed: 5,
    maxBytesBetweenSnapshots: Number.MAX_SAFE_INTEGER,
    maxSnapshotIntervalMs: 0,
    stats: new CommitStats(),
    scheduler,
    statusIntervalMs: 60_000,
    writeLine: (line) => lines.push(line),
    terminate: (error) => {
      throw error;
    },
    logger: silentLogger,
  });
  /** What raft does when this node wins `epoch`: its LeaderChange commits, then leadership is told. */
  const electSelf = async (epoch = 1) => {
    const reader = new ControlBatchReader(highWatermark - 1, epoch);
    highWatermark += 1;
    for (const listener of listeners) listener.handleCommit(reader);
    await loaderTurns();
    for (const listener of listeners) listener.handleLeaderChange?.({ leaderId: 1, epoch });
    await loaderTurns();
    return reader;
  };
  return { workload, listeners, appends, lines, scheduler, electSelf };
}

const appended = (appends: readonly number[]) => appends.reduce((sum, count) => sum + count, 0);

describe('MetadataWorkload', () => {
  it('hands every reader to the loader, which reads and closes it, and leadership to the generator', async () => {
    const { workload, appends, scheduler, electSelf } = setup();
    workload.start();
    const reader = await electSelf();
    // Raft counts as read only what the reader handed out, and announces leadership after that.
    expect(reader.readAll).toBe(true);
    expect(reader.closed).toBe(true);
    expect(workload.loader.currentImage().provenance.lastContainedEpoch).toBe(1);
    scheduler.advance(1000);
    expect(appended(appends)).toBeGreaterThanOrEqual(1000);
    workload.close();
  });

  it('stops appending for good on request, and prints its digest once when closed', async () => {
    const { workload, appends, lines, scheduler, electSelf } = setup();
    workload.start();
    await electSelf();
    scheduler.advance(100);
    expect(appended(appends)).toBeGreaterThan(0);
    workload.stopAppending();
    const stoppedAt = appended(appends);
    // Not even a new epoch this node leads, with its loader caught up, starts it again.
    await electSelf(2);
    expect(workload.loader.currentImage().provenance.lastContainedEpoch).toBe(2);
    scheduler.advance(1000);
    expect(appended(appends)).toBe(stoppedAt);
    const status = lines.filter((line) => line.startsWith(METADATA_STATUS_PREFIX)).at(-1) as string;
    expect(JSON.parse(status.slice(METADATA_STATUS_PREFIX.length))).toMatchObject({ appending: false });

    workload.close();
    workload.close();
    const digests = lines.filter((line) => line.startsWith(METADATA_DIGEST_PREFIX));
    expect(digests).toHaveLength(1);
    expect(JSON.parse((digests[0] as string).slice(METADATA_DIGEST_PREFIX.length))).toMatchObject({
      nodeId: 1,
      appendedRecords: stoppedAt,
    });
  });
});
