import { readdirSync } from 'node:fs';

/**
 * A snapshot file of a node's partition directory, as Kafka names it: `<end offset, 20 digits>-<epoch,
 * 10 digits>.checkpoint`. The bootstrap checkpoint (offset 0, epoch 0) holds no state and is left out.
 */
const SNAPSHOT_FILE = /^(\d{20})-(\d{10})\.checkpoint$/;

/** The snapshots the nodes hold at the end of a kv run. */
export interface KvSnapshotCount {
  /** Snapshot files over all nodes. */
  readonly files: number;
  /** Nodes holding at least one. */
  readonly nodes: number;
  /** The highest end offset among them (-1 when there are none). */
  readonly highestEndOffset: number;
}

/** The snapshot files in `partitionDirectories` (one per node; a missing one holds none). */
export function countKvSnapshots(partitionDirectories: readonly string[]): KvSnapshotCount {
  let files = 0;
  let nodes = 0;
  let highestEndOffset = -1;
  for (const directory of partitionDirectories) {
    const endOffsets = snapshotEndOffsets(directory);
    files += endOffsets.length;
    if (endOffsets.length > 0) nodes += 1;
    highestEndOffset = Math.max(highestEndOffset, ...endOffsets);
  }
  return { files, nodes, highestEndOffset };
}

function snapshotEndOffsets(directory: string): number[] {
  let names: string[];
  try {
    names = readdirSync(directory);
  } catch {
    return [];
  }
  const endOffsets: number[] = [];
  for (const name of names) {
    const match = SNAPSHOT_FILE.exec(name);
    if (match === null) continue;
    const endOffset = Number(match[1]);
    if (endOffset > 0) endOffsets.push(endOffset);
  }
  return endOffsets;
}

/**
 * Why a run that committed at least two snapshot intervals ends with no snapshot on any node:
 * the snapshot path then went untested, which the run must not pass silently.
 */
export function missingSnapshotProblem(
  count: KvSnapshotCount,
  committedOffset: number,
  snapshotEveryRecords: number,
): string | undefined {
  if (count.files > 0 || committedOffset < 2 * snapshotEveryRecords) return undefined;
  return `no node took a snapshot, though ${committedOffset} offsets were committed with one due every ${snapshotEveryRecords} records`;
}

/**
 * The snapshot restores and the highest log start the nodes reported over a run, from their
 * status lines: each process counts its own restores, so they add up per process id.
 */
export class KvSnapshotActivity {
  /** The last restore count of each process (a run starts a handful of processes per node). */
  private readonly lastRestores = new Map<number, number>();
  private restoreTotal = 0;
  private logStart = 0;

  observe(status: {
    readonly processId?: number | undefined;
    readonly restores?: number | undefined;
    readonly logStartOffset?: number | undefined;
  }): void {
    if (status.logStartOffset !== undefined) this.logStart = Math.max(this.logStart, status.logStartOffset);
    if (status.restores === undefined || status.processId === undefined) return;
    const last = this.lastRestores.get(status.processId) ?? 0;
    this.restoreTotal += Math.max(0, status.restores - last);
    this.lastRestores.set(status.processId, Math.max(last, status.restores));
  }

  /** Restores over every process of every node. */
  restores(): number {
    return this.restoreTotal;
  }

  /** The highest log start offset any node reported (0 while retention deleted nothing). */
  highestLogStartOffset(): number {
    return this.logStart;
  }
}
