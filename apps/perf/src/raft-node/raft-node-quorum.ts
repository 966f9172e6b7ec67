import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RaftNodeConfig } from '@kraft/raft';
import { STARTUP_TIMEOUT_MS } from '../workload/local-quorum.js';
import { RaftNodeProcess } from './raft-node-process.js';

const HOST = '127.0.0.1';
const CLUSTER_ID = 'raft-node-perf';

export interface RaftNodeQuorumOptions {
  readonly nodeCount: number;
  readonly config: RaftNodeConfig;
  /** Where the quorum's directory goes (default the OS temp dir). */
  readonly baseDirectory?: string;
}

/**
 * N RaftNode child processes on 127.0.0.1, each on a fresh directory under one temporary one.
 * Every child binds port 0 and reports its port; the voters string of those ports then starts
 * them all. `destroy()` kills what still runs and removes the directory; quorums not yet
 * destroyed are destroyed by the runner's signal and exit handlers (`RaftNodeQuorum.active`).
 */
export class RaftNodeQuorum {
  static readonly active = new Set<RaftNodeQuorum>();
  readonly nodes: RaftNodeProcess[] = [];

  private constructor(readonly directory: string) {
    RaftNodeQuorum.active.add(this);
  }

  static async start(options: RaftNodeQuorumOptions): Promise<RaftNodeQuorum> {
    const directory = mkdtempSync(join(options.baseDirectory ?? tmpdir(), 'kraft-perf-raft-node-'));
    const quorum = new RaftNodeQuorum(directory);
    try {
      for (let nodeId = 1; nodeId <= options.nodeCount; nodeId += 1) {
        const nodeDirectory = join(directory, `n${nodeId}`);
        mkdirSync(nodeDirectory);
        quorum.nodes.push(
          new RaftNodeProcess({
            nodeId,
            directory: nodeDirectory,
            clusterId: CLUSTER_ID,
            config: options.config,
          }),
        );
      }
      await withTimeout(quorum.startAll(), STARTUP_TIMEOUT_MS, 'every raft node to start');
      return quorum;
    } catch (error) {
      await quorum.stop();
      throw error;
    }
  }

  /** Starts a quorum, runs `body` on it, and always stops it (directory included). */
  static async run<T>(
    options: RaftNodeQuorumOptions,
    body: (quorum: RaftNodeQuorum) => Promise<T>,
  ): Promise<T> {
    const quorum = await RaftNodeQuorum.start(options);
    try {
      return await body(quorum);
    } finally {
      await quorum.stop();
    }
  }

  /** Every node's bound port, then the voters string of them all to each. */
  private async startAll(): Promise<void> {
    const ports = await Promise.all(this.nodes.map((node) => node.port));
    const voters = ports.map((port, index) => `${index + 1}@${HOST}:${port}`).join(',');
    await Promise.all(this.nodes.map((node) => node.start(voters)));
  }

  /**
   * kill -9 to every node still running, then the directory goes once they are gone (a dying
   * node could otherwise still write into it). Nothing here is measured after the end, so a
   * clean close would only cost time.
   */
  async stop(): Promise<void> {
    for (const node of this.nodes) node.kill();
    await Promise.all(this.nodes.map((node) => node.exited()));
    this.destroy();
  }

  /** Kills what still runs and removes the directory at once (the runner's exit and signal handlers). */
  destroy(): void {
    RaftNodeQuorum.active.delete(this);
    for (const node of this.nodes) node.kill();
    rmSync(this.directory, { recursive: true, force: true });
  }
}

/** `promise`, or a rejection naming `what` after `timeoutMs` (start-up is tsx's and the log's CPU work: see STARTUP_TIMEOUT_MS). */
async function withTimeout<T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () => reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
