/**
 * The restarted follower of the snapshot catch-up bench, run in a child process of its own so its
 * memory (peak RSS) and CPU are its own and not shared with the leader's event loop. The parent
 * spawns it with the node's spec; the child restarts the node on the old port and directory,
 * reports its catch-up timeline once it has reached the target high watermark, then waits for
 * `stop` to shut down gracefully.
 */
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { OffsetAndEpoch } from '@kraft/raft';
import { forkSourceChild } from './fork-source-child.js';
import type { ClusterNodeSpec } from './snapshot-cluster.js';

export interface CatchUpFollowerSpec extends ClusterNodeSpec {
  /** The leader's high watermark at the restart: caught up means committed up to here. */
  readonly targetHighWatermark: number;
  /** The snapshot the follower must install; the tail digest starts at its offset. */
  readonly snapshotId: OffsetAndEpoch;
  readonly timeoutMs: number;
}

/** The follower's timeline, each figure measured on its own clock. */
export interface CatchUpReport {
  readonly kind: 'caught-up';
  readonly restartToLeaderKnownMs: number;
  /** Leader known → the snapshot installed (FetchSnapshot chunks, freeze, log replaced). */
  readonly snapshotTransferAndInstallMs: number;
  /** The listener's `handleLoadSnapshot`: decoding every batch of the snapshot. */
  readonly snapshotLoadMs: number;
  readonly tailFetchMs: number;
  readonly restartToCaughtUpMs: number;
  readonly snapshotLoads: number;
  readonly loadedSnapshotId: OffsetAndEpoch | undefined;
  readonly loadedRecordCount: number;
  /** RSS just before the node started, and the process's peak RSS when it had caught up. */
  readonly rssAtStartBytes: number;
  readonly maxRssBytes: number;
  /** SHA-256 of the snapshot file and of the committed log above it, computed after the clock stopped. */
  readonly snapshotFileDigest: string;
  readonly tail: { readonly bytes: number; readonly digest: string };
}

type ChildMessage = CatchUpReport | { readonly kind: 'failed'; readonly message: string };

const ENTRY_POINT = join(import.meta.dirname, 'catch-up-follower-main.ts');
/** How long the child may take to shut down after `stop` before it is killed. */
const STOP_TIMEOUT_MS = 10_000;

/** A running child follower: `report` settles with its catch-up, `stop` ends it (killing it if it hangs). */
export interface CatchUpFollower {
  readonly report: Promise<CatchUpReport>;
  stop(): Promise<void>;
}

export function spawnCatchUpFollower(spec: CatchUpFollowerSpec): CatchUpFollower {
  const child: ChildProcess = forkSourceChild(ENTRY_POINT, spec);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const report = new Promise<CatchUpReport>((resolve, reject) => {
    // The child bounds its own wait; this bound covers a child that hangs before it starts it.
    const timer = setTimeout(
      () => reject(new Error(`the follower process did not report within ${spec.timeoutMs} ms`)),
      spec.timeoutMs + 60_000,
    );
    child.on('message', (message: ChildMessage) => {
      clearTimeout(timer);
      if (message.kind === 'caught-up') resolve(message);
      else reject(new Error(`the follower process failed: ${message.message}`));
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the follower process exited with ${code} before reporting`));
    });
  });
  // Observed here so an early failure is not unhandled before the caller awaits it.
  report.catch(() => {});
  return {
    report,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.send('stop');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
    },
  };
}
