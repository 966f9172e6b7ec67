/**
 * Starts a quorum of store processes on 127.0.0.1, each on its own directory: every process binds
 * port 0 for raft and HTTP, reports its ports over IPC, and starts once all are known. A killed
 * process restarts on the same directory and the same ports (the others' voters name them).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, mkdirSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RaftNodeConfig } from '@kraft/raft';
import type { BoundMessage, StartMessage } from './kv-process.js';

export interface KvClusterOptions {
  readonly size: number;
  /** Each node gets `node-<id>` below it (and `node-<id>.log` for its output when `logToFiles`). */
  readonly baseDirectory: string;
  readonly config?: RaftNodeConfig;
  /** Plants the stale-read bug in every node (tests only; see KvServerOptions). */
  readonly staleLinearizableReads?: boolean;
  /** Write each process's output to a file beside its directory instead of this process's stderr. */
  readonly logToFiles?: boolean;
  /** How long a process may take to bind and report its ports. Default 20 s. */
  readonly startTimeoutMs?: number;
}

export interface KvMember {
  readonly nodeId: number;
  readonly directory: string;
  raftPort: number;
  httpPort: number;
  process: ChildProcess | undefined;
}

/** Beside this module: the TypeScript source in the workspace (run through tsx), or compiled JavaScript. */
const PROCESS_ENTRY = fileURLToPath(new URL(`./kv-process${extname(import.meta.url)}`, import.meta.url));
const PROCESS_ARGUMENTS = PROCESS_ENTRY.endsWith('.ts')
  ? ['--conditions=@kraft/source', '--import', 'tsx', PROCESS_ENTRY]
  : [PROCESS_ENTRY];
const STOP_TIMEOUT_MS = 5_000;

export class KvCluster {
  readonly members: KvMember[];
  private startMessage: StartMessage | undefined;

  private constructor(private readonly options: KvClusterOptions) {
    this.members = Array.from({ length: options.size }, (_, index) => ({
      nodeId: index + 1,
      directory: join(options.baseDirectory, `node-${index + 1}`),
      raftPort: 0,
      httpPort: 0,
      process: undefined,
    }));
  }

  /** Spawns every process, waits for their ports, then starts the quorum on them. */
  static async start(options: KvClusterOptions): Promise<KvCluster> {
    const cluster = new KvCluster(options);
    try {
      await Promise.all(cluster.members.map((member) => cluster.spawnMember(member)));
      const voters = cluster.members.map((member) => `${member.nodeId}@127.0.0.1:${member.raftPort}`);
      const httpUrls = Object.fromEntries(
        cluster.members.map((member) => [member.nodeId, cluster.httpUrl(member)]),
      );
      cluster.startMessage = { type: 'start', voters: voters.join(','), httpUrls };
      for (const member of cluster.members) member.process?.send(cluster.startMessage);
    } catch (error) {
      await cluster.stop();
      throw error;
    }
    return cluster;
  }

  httpUrl(member: KvMember): string {
    return `http://127.0.0.1:${member.httpPort}`;
  }

  member(nodeId: number): KvMember {
    const member = this.members.find((candidate) => candidate.nodeId === nodeId);
    if (member === undefined) throw new Error(`no node ${nodeId} in this cluster`);
    return member;
  }

  /** The id of a running node that reports itself leader, asking each over HTTP until one does. */
  async waitForLeader(timeoutMs = 20_000): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      for (const member of this.members) {
        if (member.process === undefined) continue;
        try {
          const response = await fetch(`${this.httpUrl(member)}/status`, {
            signal: AbortSignal.timeout(1_000),
          });
          if (((await response.json()) as { role: string }).role === 'leader') return member.nodeId;
        } catch {
          // Not listening yet, paused or just killed: ask the next one.
        }
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`no leader within ${timeoutMs} ms`);
  }

  /** kill -9: the process gets no chance to flush or resign. */
  async kill(nodeId: number): Promise<void> {
    await stopProcess(this.member(nodeId), 'SIGKILL');
  }

  /** SIGSTOP: the process keeps its sockets but answers nothing until `resume` (a lagging node). */
  pause(nodeId: number): void {
    this.member(nodeId).process?.kill('SIGSTOP');
  }

  resume(nodeId: number): void {
    this.member(nodeId).process?.kill('SIGCONT');
  }

  /** Starts a killed node again on its directory and ports. */
  async restart(nodeId: number): Promise<void> {
    const member = this.member(nodeId);
    if (member.process !== undefined) throw new Error(`node ${nodeId} is still running`);
    const child = await this.spawnMember(member);
    if (this.startMessage !== undefined) child.send(this.startMessage);
  }

  /** SIGTERM to every process (a clean close), SIGKILL to any still running after a few seconds. */
  async stop(): Promise<void> {
    await Promise.all(this.members.map((member) => stopProcess(member, 'SIGTERM')));
  }

  private async spawnMember(member: KvMember): Promise<ChildProcess> {
    mkdirSync(member.directory, { recursive: true });
    const output = this.options.logToFiles === true ? 'pipe' : 'inherit';
    const child = spawn(process.execPath, PROCESS_ARGUMENTS, {
      cwd: join(import.meta.dirname, '..'),
      stdio: ['ignore', output, output, 'ipc'],
      env: {
        ...process.env,
        KV_NODE_ID: String(member.nodeId),
        KV_DIRECTORY: member.directory,
        KV_RAFT_PORT: String(member.raftPort),
        KV_HTTP_PORT: String(member.httpPort),
        KV_RAFT_CONFIG: JSON.stringify(this.options.config ?? {}),
        KV_STALE_LINEARIZABLE_READS: this.options.staleLinearizableReads === true ? '1' : '0',
      },
    });
    member.process = child;
    if (this.options.logToFiles === true) {
      const log = createWriteStream(`${member.directory}.log`, { flags: 'a' });
      child.stdout?.pipe(log, { end: false });
      child.stderr?.pipe(log, { end: false });
      child.once('exit', () => log.end());
    }
    const bound = await waitForBound(child, member.nodeId, this.options.startTimeoutMs ?? 20_000);
    member.raftPort = bound.raftPort;
    member.httpPort = bound.httpPort;
    return child;
  }
}

function waitForBound(child: ChildProcess, nodeId: number, timeoutMs: number): Promise<BoundMessage> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => fail(new Error(`node ${nodeId} did not bind within ${timeoutMs} ms`)),
      timeoutMs,
    );
    const onMessage = (message: BoundMessage) => {
      if (message.type !== 'bound') return;
      cleanUp();
      resolve(message);
    };
    const onExit = (code: number | null, signal: string | null) =>
      fail(new Error(`node ${nodeId} exited before binding (code ${code}, signal ${signal})`));
    const fail = (error: Error) => {
      cleanUp();
      reject(error);
    };
    const cleanUp = () => {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
    };
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

async function stopProcess(member: KvMember, signal: NodeJS.Signals): Promise<void> {
  const child = member.process;
  if (child === undefined) return;
  member.process = undefined;
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  // A paused process takes no SIGTERM until it runs again.
  child.kill('SIGCONT');
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
  await exited;
  clearTimeout(timer);
}
