import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProxyMesh } from './proxy-mesh.js';
import { TestNode } from './test-node.js';

/** The README's directory ids, one per node. */
export const DIRECTORY_IDS = [
  'b8tRS7h4TJ2Vt43Dp85v2A',
  'Nkij_D9XRiYKNb41SiJo7Q',
  '4-e97nI7eHPYKfEDtW8rtQ',
] as const;
export const PARTITION_DIRECTORY = '__raft_performance_test-0';

/** Ports the OS says are free right now (bound to 127.0.0.1 port 0, then released). */
export async function pickFreePorts(count: number): Promise<number[]> {
  const held = await holdFreePorts(count);
  await held.release();
  return held.ports;
}

/**
 * Free ports, still bound until `release()`: whatever else binds port 0 meanwhile (the fault
 * proxies) cannot be given one of them.
 */
export async function holdFreePorts(
  count: number,
): Promise<{ ports: number[]; release: () => Promise<void> }> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<ReturnType<typeof createServer>>((resolve, reject) => {
          const server = createServer();
          server.once('error', reject);
          server.listen(0, '127.0.0.1', () => resolve(server));
        }),
    ),
  );
  const ports = servers.map((server) => {
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    return address.port;
  });
  const release = async (): Promise<void> => {
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  };
  return { ports, release };
}

export interface TestClusterOptions {
  /**
   * Route every connection between nodes through a `ProxyMesh` of fault proxies (one per
   * directed link), so tests can cut, blackhole and delay links. Off by default: the nodes then
   * connect to each other's listeners directly.
   */
  readonly proxied?: boolean;
}

/** A quorum of `size` voters on 127.0.0.1 with its configs and log dirs in a fresh temp dir. */
export class TestCluster {
  readonly root: string;
  readonly nodes = new Map<number, TestNode>();

  private constructor(
    /** The real listener ports (DescribeQuorum goes here, never through a proxy). */
    readonly ports: readonly number[],
    readonly extraProperties: string,
    readonly statsIntervalMs: number,
    private readonly proxyMesh: ProxyMesh | undefined,
  ) {
    this.root = mkdtempSync(join(tmpdir(), 'kraft-test-server-'));
  }

  /** `statsIntervalMs`: 1 s lets tests see progress sooner than Kafka's 5 s. */
  static async create(
    size: number,
    extraProperties = '',
    statsIntervalMs = 1000,
    options: TestClusterOptions = {},
  ): Promise<TestCluster> {
    const held = await holdFreePorts(size);
    const ports = held.ports;
    let mesh: ProxyMesh | undefined;
    try {
      // Bound while the listener ports are still held, so no proxy can take a node's port.
      mesh = options.proxied === true ? await ProxyMesh.start(ports) : undefined;
    } finally {
      await held.release();
    }
    const cluster = new TestCluster(ports, extraProperties, statsIntervalMs, mesh);
    for (let nodeId = 1; nodeId <= size; nodeId += 1) cluster.writeConfig(nodeId);
    return cluster;
  }

  /** The fault proxies between the nodes; only for a cluster created with `{ proxied: true }`. */
  get mesh(): ProxyMesh {
    if (this.proxyMesh === undefined) throw new Error('this cluster was not created with { proxied: true }');
    return this.proxyMesh;
  }

  configPath(nodeId: number): string {
    return join(this.root, `kraft-quorum-${nodeId}.properties`);
  }

  logDirectory(nodeId: number): string {
    return join(this.root, `kraft-logs-${nodeId}`);
  }

  /** Node `nodeId`'s voters line: the real listeners, or with a mesh the ports it must use. */
  votersLine(nodeId: number): string {
    return this.ports
      .map((port, index) => {
        const voter = index + 1;
        const voterPort = this.proxyMesh === undefined ? port : this.proxyMesh.voterPort(nodeId, voter);
        return `${voter}@127.0.0.1:${voterPort}`;
      })
      .join(',');
  }

  private writeConfig(nodeId: number): void {
    const voters = this.votersLine(nodeId);
    mkdirSync(this.root, { recursive: true });
    writeFileSync(
      this.configPath(nodeId),
      [
        `node.id=${nodeId}`,
        `listeners=PLAINTEXT://127.0.0.1:${this.ports[nodeId - 1]}`,
        'controller.listener.names=PLAINTEXT',
        `controller.quorum.voters=${voters}`,
        `log.dirs=${this.logDirectory(nodeId)}`,
        this.extraProperties,
      ].join('\n'),
    );
  }

  start(nodeId: number, extraArgs: readonly string[] = []): TestNode {
    const node = new TestNode({
      nodeId,
      configPath: this.configPath(nodeId),
      directoryId: DIRECTORY_IDS[(nodeId - 1) % DIRECTORY_IDS.length] as string,
      extraArgs,
      statsIntervalMs: this.statsIntervalMs,
    });
    this.nodes.set(nodeId, node);
    return node;
  }

  node(nodeId: number): TestNode {
    const node = this.nodes.get(nodeId);
    if (node === undefined) throw new Error(`node ${nodeId} was never started`);
    return node;
  }

  /** Kills whatever still runs, closes the proxies and removes the temp dir. */
  async destroy(): Promise<void> {
    await Promise.all([...this.nodes.values()].map((node) => node.killHard()));
    await this.proxyMesh?.close();
    rmSync(this.root, { recursive: true, force: true });
  }

  /** The node's `.log` segments concatenated in offset order. */
  readLogBytes(nodeId: number): Buffer {
    const directory = join(this.logDirectory(nodeId), PARTITION_DIRECTORY);
    const segments = readdirSync(directory)
      .filter((name) => name.endsWith('.log'))
      .sort();
    return Buffer.concat(segments.map((name) => readFileSync(join(directory, name))));
  }
}

/**
 * The byte length of the batches holding offsets below `offset` (the log's prefix up to the high
 * watermark), walking v2 batch headers: baseOffset int64 @0, batchLength int32 @8,
 * lastOffsetDelta int32 @23. Stops at a zero-filled (preallocated) tail.
 */
export function bytesBelowOffset(log: Buffer, offset: number): number {
  let position = 0;
  while (position + 27 <= log.length) {
    const baseOffset = Number(log.readBigInt64BE(position));
    const batchLength = log.readInt32BE(position + 8);
    if (batchLength <= 0) break;
    const lastOffset = baseOffset + log.readInt32BE(position + 23);
    if (lastOffset >= offset) {
      if (baseOffset < offset) throw new Error(`offset ${offset} falls inside the batch at ${baseOffset}`);
      break;
    }
    position += 12 + batchLength;
  }
  return position;
}
