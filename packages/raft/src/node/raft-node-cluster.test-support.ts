// Test support (not published: `files` leaves out `*.test-support.ts`): RaftNodes in one process
// on 127.0.0.1 port 0, each on its own temporary directory, and a small replicated map.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from '@kraft/protocol';
import { RaftNode } from './raft-node.js';
import type { LogPosition, RaftNodeBindOptions, RaftNodeConfig, StateMachine } from './raft-node-options.js';
import { jsonSerde } from './record-serde.js';

/** A key-value command of the test state machine. */
export interface PutCommand {
  readonly key: string;
  readonly value: string;
}

/** A replicated map: what every node's state machine must agree on. */
export class MapStateMachine implements StateMachine<PutCommand> {
  readonly entries = new Map<string, string>();
  readonly applied: LogPosition[] = [];
  restores = 0;

  apply(command: PutCommand, position: LogPosition): void {
    this.entries.set(command.key, command.value);
    this.applied.push(position);
  }

  snapshot(writer: { append(values: readonly PutCommand[]): void }): void {
    writer.append([...this.entries].map(([key, value]) => ({ key, value })));
  }

  restore(reader: Iterable<PutCommand>): void {
    this.restores += 1;
    this.entries.clear();
    for (const command of reader) this.entries.set(command.key, command.value);
  }
}

/** The levels a recording logger keeps (trace is dropped: it is per-batch detail). */
export type RecordedLevel = 'debug' | 'info' | 'warn' | 'error' | 'fatal';

/** A logger that hands every line at or above debug, with its level and fields, to `record`. */
export function lineRecordingLogger(
  record: (level: RecordedLevel, fields: object, message: string | undefined) => void,
): Logger {
  const at =
    (level: RecordedLevel) =>
    (fields: object, message?: string): void =>
      record(level, fields, message);
  const logger: Logger = {
    trace: () => {},
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    fatal: at('fatal'),
    child: () => logger,
    isLevelEnabled: () => true,
  };
  return logger;
}

/** A logger that keeps the message of every line at or above debug, for tests to look for. */
export function recordingLogger(messages: string[]): Logger {
  return lineRecordingLogger((_level, _fields, message) => {
    if (message !== undefined) messages.push(message);
  });
}

/**
 * Fast elections for tests on loopback: Kafka's defaults would make each test wait seconds. The
 * fetch timeout stays well above the 500 ms a leader may hold a fetch with nothing new: at 600 ms
 * a loaded machine (three nodes share this process's event loop) turned every held fetch into an
 * election, a new leader every half second, and a slower follower never learnt a high watermark.
 */
export const FAST_QUORUM_CONFIG: RaftNodeConfig = {
  electionTimeoutMs: 300,
  fetchTimeoutMs: 1_500,
  electionBackoffMaxMs: 300,
  requestTimeoutMs: 500,
  appendLingerMs: 2,
  shutdownTimeoutMs: 1_000,
};

export interface TestMember {
  readonly nodeId: number;
  readonly directory: string;
  readonly stateMachine: MapStateMachine;
  node: RaftNode<PutCommand>;
}

/** Options one node is opened with beyond the cluster's own (TLS material, a security protocol map). */
export type NodeOptionsFor = (nodeId: number) => Partial<RaftNodeBindOptions<PutCommand>>;

/** Creates and removes temporary directories and the nodes on them. */
export class TestCluster {
  readonly members: TestMember[] = [];
  voters = '';
  private readonly directories: string[] = [];
  private readonly optionsFor: NodeOptionsFor;

  /** `optionsFor` is applied on every open of a node, the first and every restart. */
  constructor(optionsFor: NodeOptionsFor = () => ({})) {
    this.optionsFor = optionsFor;
  }

  /** Binds `size` nodes on port 0, then starts each with the voters string of the bound ports. */
  async start(size: number, config: RaftNodeConfig = {}): Promise<void> {
    for (let nodeId = 1; nodeId <= size; nodeId += 1) {
      const directory = this.newDirectory();
      const stateMachine = new MapStateMachine();
      const node = await RaftNode.bind({ ...this.nodeOptions(nodeId, directory, config), stateMachine });
      this.members.push({ nodeId, directory, stateMachine, node });
    }
    this.voters = this.members
      .map((member) => `${member.nodeId}@127.0.0.1:${member.node.endpoints()[0]?.port}`)
      .join(',');
    for (const member of this.members) await member.node.start(this.voters);
  }

  /** Opens `member` again on its directory and port, with a fresh state machine. */
  async restart(member: TestMember, config: RaftNodeConfig = {}): Promise<MapStateMachine> {
    await member.node.close();
    const port = this.voters
      .split(',')
      .find((entry) => entry.startsWith(`${member.nodeId}@`))
      ?.split(':')[1];
    const stateMachine = new MapStateMachine();
    member.node = await RaftNode.open({
      ...this.nodeOptions(member.nodeId, member.directory, config),
      listeners: `CONTROLLER://127.0.0.1:${port}`,
      voters: this.voters,
      stateMachine,
    });
    Object.assign(member, { stateMachine });
    return stateMachine;
  }

  nodeOptions(nodeId: number, directory: string, config: RaftNodeConfig) {
    return {
      nodeId,
      directory,
      listeners: 'CONTROLLER://127.0.0.1:0',
      clusterId: 'raft-node-test',
      serde: jsonSerde<PutCommand>(),
      config: { ...FAST_QUORUM_CONFIG, ...config },
      ...this.optionsFor(nodeId),
    };
  }

  newDirectory(): string {
    const directory = mkdtempSync(join(tmpdir(), 'kraft-raft-node-'));
    this.directories.push(directory);
    return directory;
  }

  /** The one running leader among `among` (default every member), waited for. */
  async leader(timeoutMs = 15_000, among: readonly TestMember[] = this.members): Promise<TestMember> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const leaders = among.filter((member) => member.node.status().role === 'leader');
      if (leaders.length === 1) return leaders[0] as TestMember;
      if (Date.now() > deadline) throw new Error(`no single leader within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  async closeAll(): Promise<void> {
    await Promise.allSettled(this.members.map((member) => member.node.close()));
    for (const directory of this.directories.splice(0)) rmSync(directory, { recursive: true, force: true });
  }
}
