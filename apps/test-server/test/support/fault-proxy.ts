import { once } from 'node:events';
import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * How a cut link behaves:
 * - `reset`: live connections are reset and new ones are reset as soon as they are accepted, so
 *   the client sees an error at once (a refused or torn-down connection).
 * - `blackhole`: nothing is forwarded any more, in either direction, and new connections are
 *   accepted but never reach the target, so the client learns of it only from its own request
 *   timeout. Bytes stay in the proxy's bounded queues and the kernel's socket buffers (reading
 *   pauses at the bound), as packets would on a partitioned network; on `heal()` the connections
 *   that survived resume where they stopped, as TCP does after a partition heals.
 */
export type CutMode = 'reset' | 'blackhole';

export interface FaultProxyOptions {
  readonly targetHost?: string;
  readonly targetPort: number;
  /** For messages only, e.g. `1→2`. */
  readonly name?: string;
  /**
   * Bytes one direction of one connection may hold while delayed or blackholed before the proxy
   * stops reading from the sender. 1 MiB is a few Fetch responses at the test workload's rate;
   * beyond it the kernel's buffers and the sender's own backpressure take over.
   */
  readonly maxQueuedBytes?: number;
  /** Random source for the delay jitter; injectable so a unit test can pin it. */
  readonly random?: () => number;
}

/** Counters for reports and assertions. */
export interface FaultProxyStats {
  readonly acceptedConnections: number;
  readonly resetConnections: number;
  readonly openConnections: number;
  readonly forwardedBytes: number;
}

const DEFAULT_MAX_QUEUED_BYTES = 1024 * 1024;
const LOOPBACK = '127.0.0.1';

/**
 * A user-space TCP proxy on 127.0.0.1 (port 0) forwarding to one target port: one instance per
 * directed link between two nodes. Kernel-level faults (netem, iptables) are unavailable on this
 * machine (TARGETS §4.8); this stands in for them. Faults: `cut(mode)`, `heal()`, and a per-chunk
 * delay with optional jitter (order is kept: a chunk never overtakes the one before it).
 */
export class FaultProxy {
  readonly name: string;
  private readonly options: FaultProxyOptions;
  private readonly maxQueuedBytes: number;
  private readonly random: () => number;
  private readonly server: Server;
  private readonly connections = new Set<ProxiedConnection>();
  private cutMode: CutMode | undefined;
  private delayRange = { minMs: 0, maxMs: 0 };
  private closed = false;
  private listeningPort: number | undefined;
  private counters = { acceptedConnections: 0, resetConnections: 0, forwardedBytes: 0 };

  private constructor(options: FaultProxyOptions) {
    this.options = options;
    this.name = options.name ?? `proxy→${options.targetPort}`;
    this.maxQueuedBytes = options.maxQueuedBytes ?? DEFAULT_MAX_QUEUED_BYTES;
    this.random = options.random ?? Math.random;
    this.server = createServer((socket) => this.adopt(socket));
  }

  /** Listens on 127.0.0.1 port 0; read the chosen port from `port`. */
  static async start(options: FaultProxyOptions): Promise<FaultProxy> {
    const proxy = new FaultProxy(options);
    proxy.server.listen(0, LOOPBACK);
    await once(proxy.server, 'listening');
    const address = proxy.server.address();
    if (address === null || typeof address === 'string') throw new Error(`${proxy.name}: no port`);
    proxy.listeningPort = address.port;
    return proxy;
  }

  /** The port it listens on (kept after `close()`, for messages). */
  get port(): number {
    if (this.listeningPort === undefined) throw new Error(`${this.name} is not listening`);
    return this.listeningPort;
  }

  get isCut(): boolean {
    return this.cutMode !== undefined;
  }

  stats(): FaultProxyStats {
    return { ...this.counters, openConnections: this.connections.size };
  }

  /** Drops the link: `reset` tears connections down, `blackhole` silently stops forwarding. */
  cut(mode: CutMode): void {
    this.cutMode = mode;
    if (mode === 'reset') {
      for (const connection of [...this.connections]) this.reset(connection);
    }
  }

  /** Forwards again; blackholed connections resume and connect to the target if they never did. */
  heal(): void {
    this.cutMode = undefined;
    for (const connection of this.connections) connection.resume();
  }

  /**
   * Holds every chunk for `minMs` to `maxMs` (uniform) before forwarding it; `0` turns delay off.
   * Chunks stay in order, so the effective delay of a burst is at least the largest draw in it.
   */
  setDelay(minMs: number, maxMs = minMs): void {
    if (!(minMs >= 0 && maxMs >= minMs)) throw new Error(`bad delay range ${minMs}..${maxMs} ms`);
    this.delayRange = { minMs, maxMs };
  }

  /**
   * Takes over a client socket accepted elsewhere (the `ClientIdRouter`), with the bytes already
   * read from it, exactly as if it had connected to this proxy.
   */
  adopt(client: Socket, head?: Buffer): void {
    if (this.closed) {
      client.destroy();
      return;
    }
    this.counters.acceptedConnections += 1;
    if (this.cutMode === 'reset') {
      this.counters.resetConnections += 1;
      client.on('error', () => {});
      client.resetAndDestroy();
      return;
    }
    const connection = new ProxiedConnection(client, {
      targetHost: this.options.targetHost ?? LOOPBACK,
      targetPort: this.options.targetPort,
      maxQueuedBytes: this.maxQueuedBytes,
      isForwarding: () => this.cutMode === undefined,
      delayMs: () => this.drawDelayMs(),
      onForwarded: (bytes) => {
        this.counters.forwardedBytes += bytes;
      },
      onClosed: () => this.connections.delete(connection),
    });
    this.connections.add(connection);
    connection.start(head);
  }

  /** Closes the listener and every connection; resolves once the listener is closed. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const connection of [...this.connections]) connection.destroy();
    this.connections.clear();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private reset(connection: ProxiedConnection): void {
    this.counters.resetConnections += 1;
    connection.reset();
  }

  private drawDelayMs(): number {
    const { minMs, maxMs } = this.delayRange;
    return minMs + (maxMs - minMs) * this.random();
  }
}

interface ProxiedConnectionOptions {
  readonly targetHost: string;
  readonly targetPort: number;
  readonly maxQueuedBytes: number;
  readonly isForwarding: () => boolean;
  readonly delayMs: () => number;
  readonly onForwarded: (bytes: number) => void;
  readonly onClosed: () => void;
}

/** A client socket and, once forwarding is allowed, its socket to the target. */
class ProxiedConnection {
  private target: Socket | undefined;
  private upstream: Pump | undefined;
  private downstream: Pump | undefined;
  private pendingHead: Buffer | undefined;
  private closed = false;

  constructor(
    private readonly client: Socket,
    private readonly options: ProxiedConnectionOptions,
  ) {}

  start(head: Buffer | undefined): void {
    this.pendingHead = head;
    this.client.on('error', () => this.destroy());
    this.client.on('close', () => this.destroy());
    // Until a target exists, the client's bytes wait in the kernel (blackholed from the start).
    this.client.pause();
    if (this.options.isForwarding()) this.connectTarget();
  }

  /** Called on heal: connect if we never did, and let the pumps run again. */
  resume(): void {
    if (this.closed) return;
    if (this.target === undefined) this.connectTarget();
    this.upstream?.kick();
    this.downstream?.kick();
  }

  reset(): void {
    if (this.closed) return;
    this.client.resetAndDestroy();
    this.target?.resetAndDestroy();
    this.destroy();
  }

  destroy(): void {
    if (this.closed) return;
    this.closed = true;
    this.upstream?.stop();
    this.downstream?.stop();
    this.client.destroy();
    this.target?.destroy();
    this.options.onClosed();
  }

  private connectTarget(): void {
    const target = connect({ host: this.options.targetHost, port: this.options.targetPort, noDelay: true });
    this.target = target;
    target.on('error', () => this.destroy());
    target.on('close', () => this.destroy());
    const pumpOptions = {
      maxQueuedBytes: this.options.maxQueuedBytes,
      isForwarding: this.options.isForwarding,
      delayMs: this.options.delayMs,
      onForwarded: this.options.onForwarded,
    };
    this.upstream = new Pump(this.client, target, pumpOptions);
    this.downstream = new Pump(target, this.client, pumpOptions);
    const head = this.pendingHead;
    this.pendingHead = undefined;
    if (head !== undefined && head.length > 0) this.upstream.enqueue(head);
    this.client.resume();
  }
}

interface PumpOptions {
  readonly maxQueuedBytes: number;
  readonly isForwarding: () => boolean;
  readonly delayMs: () => number;
  readonly onForwarded: (bytes: number) => void;
}

interface QueuedChunk {
  readonly chunk: Buffer;
  readonly releaseAtMs: number;
}

/**
 * One direction of a connection: chunks read from `source` wait in a bounded queue until their
 * release time and until forwarding is allowed, then go to `destination` in order. Reading
 * pauses while the queue is over its bound or the destination pushes back.
 */
class Pump {
  private readonly queue: QueuedChunk[] = [];
  private queuedBytes = 0;
  private timer: NodeJS.Timeout | undefined;
  private waitingForDrain = false;
  private stopped = false;
  private lastReleaseAtMs = 0;

  constructor(
    private readonly source: Socket,
    private readonly destination: Socket,
    private readonly options: PumpOptions,
  ) {
    source.on('data', (chunk: Buffer) => this.enqueue(chunk));
    source.on('end', () => this.enqueueEnd());
    destination.on('drain', () => {
      this.waitingForDrain = false;
      this.kick();
    });
  }

  enqueue(chunk: Buffer): void {
    if (this.stopped) return;
    // Never earlier than the chunk before it: order is kept even with jitter.
    const releaseAtMs = Math.max(performance.now() + this.options.delayMs(), this.lastReleaseAtMs);
    this.lastReleaseAtMs = releaseAtMs;
    this.queue.push({ chunk, releaseAtMs });
    this.queuedBytes += chunk.length;
    if (this.queuedBytes >= this.options.maxQueuedBytes) this.source.pause();
    this.kick();
  }

  /** Forwards what is due; arms a timer for the next chunk, or waits for drain or heal. */
  kick(): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    while (this.queue.length > 0 && !this.waitingForDrain && this.options.isForwarding()) {
      const head = this.queue[0] as QueuedChunk;
      const waitMs = head.releaseAtMs - performance.now();
      if (waitMs > 0) {
        this.timer = setTimeout(() => this.kick(), waitMs);
        return;
      }
      this.queue.shift();
      this.queuedBytes -= head.chunk.length;
      if (head.chunk.length === 0) {
        this.destination.end();
        continue;
      }
      this.options.onForwarded(head.chunk.length);
      if (!this.destination.write(head.chunk)) this.waitingForDrain = true;
    }
    if (this.queuedBytes < this.options.maxQueuedBytes && this.options.isForwarding()) this.source.resume();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.queue.length = 0;
    this.queuedBytes = 0;
  }

  /** A half-close travels in order behind the data, as an empty chunk. */
  private enqueueEnd(): void {
    this.enqueue(Buffer.alloc(0));
  }
}
