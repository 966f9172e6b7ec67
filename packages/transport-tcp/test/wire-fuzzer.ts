import { connect, type Socket } from 'node:net';
import { SeededRandom } from '@kraft/protocol';
import { kraftApiRegistry } from '../src/api-registry.js';
import { requestFrame } from './socket-harness.js';

/** Frames one fuzzing connection sends at most before it half-closes. */
const MAX_FRAMES_PER_CONNECTION = 41;

/** What one fuzz run sent, by kind of frame. */
export interface FuzzReport {
  framesSent: number;
  connectionsOpened: number;
  byKind: Record<string, number>;
}

export interface FuzzOptions {
  readonly port: number;
  readonly frameCount: number;
  readonly seed: number;
  /** Fuzzing connections open at once. */
  readonly concurrency: number;
  /** Extra connections that trickle one byte of a frame per `slowLorisIntervalMs`. */
  readonly slowLorisConnections: number;
  readonly slowLorisIntervalMs: number;
  /** Pause of each fuzzing worker between two connections: paces the attack (0 = flat out). */
  readonly pauseBetweenConnectionsMs?: number;
}

const apis = kraftApiRegistry();

/** Size prefix, api key, version, correlation id and the 4-byte client id "fuzz" with its length. */
const FIRST_BODY_BYTE = 4 + 8 + 2 + 4;
const API_KEYS = apis.versionRanges().map((range) => range.apiKey);

/** Frames the server answers (or ignores gracefully) and that leave the connection open. */
const BENIGN_KINDS = ['valid', 'wrong-cluster-id', 'apiversions-unknown-version', 'mutated-body'] as const;
/** Frames after which the server closes the connection. */
const FATAL_KINDS = [
  'negative-size',
  'huge-size',
  'garbage-header',
  'unknown-api-key',
  'unknown-version',
  'truncated',
  'mutated-header',
] as const;

class FrameGenerator {
  private readonly random: SeededRandom;

  constructor(seed: number) {
    this.random = new SeededRandom(seed);
  }

  int(bound: number): number {
    return this.random.nextInt(bound);
  }

  bytes(size: number): Buffer {
    const bytes = Buffer.allocUnsafe(size);
    for (let index = 0; index < size; index += 1) bytes[index] = this.int(256);
    return bytes;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }

  validFrame(correlationId: number): Buffer {
    const { range } = apis.get(this.pick(API_KEYS))!;
    const version = range.minVersion + this.int(range.maxVersion - range.minVersion + 1);
    return requestFrame(range.apiKey, version, correlationId, undefined, 'fuzz');
  }

  /** One frame of `kind` (see BENIGN_KINDS and FATAL_KINDS). */
  frame(kind: string, correlationId: number): Buffer {
    switch (kind) {
      case 'valid':
        return this.validFrame(correlationId);
      case 'wrong-cluster-id':
        return requestFrame(this.pick([52, 53, 54]), 0, correlationId, this.wrongClusterData(), 'fuzz');
      case 'apiversions-unknown-version':
        return this.withVersion(requestFrame(18, 4, correlationId, undefined, 'fuzz'), 6 + this.int(90));
      case 'mutated-body':
        return this.mutate(this.validFrame(correlationId), FIRST_BODY_BYTE);
      case 'mutated-header':
        return this.mutate(this.validFrame(correlationId), 4, FIRST_BODY_BYTE);
      case 'negative-size':
        return Buffer.from([0x80 | this.int(128), this.int(256), this.int(256), this.int(256)]);
      case 'huge-size': {
        const prefix = Buffer.allocUnsafe(4);
        prefix.writeInt32BE(100 * 1024 * 1024 + 1 + this.int(0x7fffffff - 100 * 1024 * 1024), 0);
        return prefix;
      }
      case 'garbage-header': {
        const body = this.bytes(this.int(64));
        return Buffer.concat([sizePrefix(body.length), body]);
      }
      case 'unknown-api-key': {
        const frame = this.validFrame(correlationId);
        frame.writeInt16BE(this.pick([-1, 99, 1000, 32767, -32768, 17]), 4);
        return frame;
      }
      case 'unknown-version':
        return this.withVersion(this.validFrame(correlationId), this.pick([-1, 100, 32767, -32768]));
      case 'truncated': {
        const frame = this.validFrame(correlationId);
        return frame.subarray(0, 1 + this.int(frame.length - 1));
      }
      default:
        throw new Error(`unknown fuzz kind ${kind}`);
    }
  }

  private withVersion(frame: Buffer, apiVersion: number): Buffer {
    frame.writeInt16BE(apiVersion, 6);
    return frame;
  }

  private wrongClusterData(): unknown {
    return { ...(apis.get(52)!.api.request.defaults() as object), clusterId: `wrong-${this.int(1000)}` };
  }

  /** Flips 1-4 random bytes in [from, to) (to defaults to the end). */
  private mutate(frame: Buffer, from: number, to = frame.length): Buffer {
    if (to <= from) return frame;
    const flips = 1 + this.int(4);
    for (let flip = 0; flip < flips; flip += 1) {
      const position = from + this.int(to - from);
      frame[position] = (frame[position]! ^ (1 + this.int(255))) & 0xff;
    }
    return frame;
  }
}

function sizePrefix(size: number): Buffer {
  const prefix = Buffer.allocUnsafe(4);
  prefix.writeInt32BE(size, 0);
  return prefix;
}

function openSocket(port: number): Socket {
  const socket = connect({ host: '127.0.0.1', port });
  socket.setNoDelay(true);
  socket.on('error', () => {});
  // Responses are read and dropped so the server never stalls on a full send buffer.
  socket.on('data', () => {});
  return socket;
}

/** Sends one connection's batch: benign frames, maybe one fatal frame last; resolves when the socket closes. */
function runConnection(
  generator: FrameGenerator,
  port: number,
  report: FuzzReport,
  budget: number,
): Promise<number> {
  const socket = openSocket(port);
  report.connectionsOpened += 1;
  const benign = Math.min(budget, 1 + generator.int(MAX_FRAMES_PER_CONNECTION - 1));
  const frames: Buffer[] = [];
  for (let index = 0; index < benign; index += 1)
    frames.push(record(report, generator, generator.pick(BENIGN_KINDS), index));
  const fatal = frames.length < budget && generator.int(2) === 0;
  if (fatal) frames.push(record(report, generator, generator.pick(FATAL_KINDS), benign));
  return new Promise((resolve) => {
    const guard = setTimeout(() => socket.destroy(), 2_000);
    socket.on('close', () => {
      clearTimeout(guard);
      resolve(frames.length);
    });
    socket.once('connect', () => socket.end(Buffer.concat(frames)));
  });
}

function record(report: FuzzReport, generator: FrameGenerator, kind: string, correlationId: number): Buffer {
  report.byKind[kind] = (report.byKind[kind] ?? 0) + 1;
  return generator.frame(kind, correlationId);
}

/** Trickles a frame one byte at a time until the server cuts the connection; counts as one frame per connection. */
async function runSlowLoris(
  generator: FrameGenerator,
  options: FuzzOptions,
  report: FuzzReport,
  stop: () => boolean,
): Promise<void> {
  while (!stop()) {
    const socket = openSocket(options.port);
    report.connectionsOpened += 1;
    report.framesSent += 1;
    report.byKind['slow-loris'] = (report.byKind['slow-loris'] ?? 0) + 1;
    const frame = generator.validFrame(0);
    await new Promise<void>((resolve) => {
      let position = 0;
      const timer = setInterval(() => {
        if (stop() || position >= frame.length - 1) socket.destroy();
        else socket.write(frame.subarray(position, ++position));
      }, options.slowLorisIntervalMs);
      socket.on('close', () => {
        clearInterval(timer);
        resolve();
      });
    });
  }
}

/** Runs the fuzzers until `frameCount` frames have been sent. */
export async function runWireFuzz(options: FuzzOptions): Promise<FuzzReport> {
  const report: FuzzReport = { framesSent: 0, connectionsOpened: 0, byKind: {} };
  const generator = new FrameGenerator(options.seed);
  let remaining = options.frameCount;
  const stop = (): boolean => remaining <= 0;
  const slowLoris = Array.from({ length: options.slowLorisConnections }, (_, index) =>
    runSlowLoris(new FrameGenerator(options.seed + index + 1), options, report, stop),
  );
  const workers = Array.from({ length: options.concurrency }, async () => {
    while (remaining > 0) {
      const budget = Math.min(remaining, MAX_FRAMES_PER_CONNECTION);
      remaining -= budget;
      const sent = await runConnection(generator, options.port, report, budget);
      report.framesSent += sent;
      remaining += budget - sent;
      if ((options.pauseBetweenConnectionsMs ?? 0) > 0) {
        await new Promise((resolve) => setTimeout(resolve, options.pauseBetweenConnectionsMs));
      }
    }
  });
  await Promise.all(workers);
  await Promise.all(slowLoris);
  return report;
}
