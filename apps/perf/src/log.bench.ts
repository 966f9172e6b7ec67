// @kraft/log benchmarks (TARGETS.md P5, P7), on node:fs in one directory so every figure shares a disk:
//   1. append + flush throughput with 1 MiB batches, as a ratio to raw sequential write + fdatasync;
//   2. 1 KiB append + flush latency (p50/p99), growing vs preallocated segments, next to raw figures;
//   3. open time of a large log after a clean shutdown and after an unclean one (full CRC scan).
// Env: KRAFT_BENCH_DIR (default os.tmpdir()), KRAFT_BENCH_LOG_RECOVERY_BYTES (default 1 GiB),
// KRAFT_BENCH_LOG_THROUGHPUT_BYTES (default 256 MiB), KRAFT_BENCH_LOG_LATENCY_OPS (default 2000).
import {
  closeSync,
  fdatasync,
  fdatasyncSync,
  mkdtempSync,
  openSync,
  rmSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { CLEAN_SHUTDOWN_FILE, LogConfig, RaftLog } from '@kraft/log';
import { type MemoryRecords, MemoryRecordsBuilder, NodeFileSystem } from '@kraft/records';

const MEBIBYTE = 1024 * 1024;

function setting(name: string): string | undefined {
  return process.env[name];
}

const baseDirectory = mkdtempSync(join(setting('KRAFT_BENCH_DIR') ?? tmpdir(), 'kraft-log-bench-'));
const recoveryBytes = Number(setting('KRAFT_BENCH_LOG_RECOVERY_BYTES') ?? 1024 * MEBIBYTE);
const throughputBytes = Number(setting('KRAFT_BENCH_LOG_THROUGHPUT_BYTES') ?? 256 * MEBIBYTE);
const latencyOps = Number(setting('KRAFT_BENCH_LOG_LATENCY_OPS') ?? 2000);
const fileSystem = new NodeFileSystem();
let runs = 0;

/** One batch of `records` records of `valueBytes` each (what a raft leader writes). */
function batch(records: number, valueBytes: number): MemoryRecords {
  const builder = new MemoryRecordsBuilder({ maxBatchSizeBytes: 16 * MEBIBYTE });
  const value = Buffer.alloc(valueBytes, 0x6b);
  for (let index = 0; index < records; index += 1) builder.append({ timestamp: Date.now(), value });
  return builder.build();
}

function openLog(name: string, options: { preallocate?: boolean; segmentBytes?: number } = {}): RaftLog {
  return RaftLog.open({
    dir: join(baseDirectory, name),
    fileSystem,
    config: new LogConfig({
      segmentBytes: options.segmentBytes ?? 1024 * MEBIBYTE,
      preallocate: options.preallocate ?? false,
    }),
  });
}

function percentile(sortedMs: readonly number[], fraction: number): number {
  return sortedMs[Math.min(sortedMs.length - 1, Math.floor(fraction * sortedMs.length))] ?? 0;
}

function row(label: string, value: string): void {
  process.stdout.write(`  ${label.padEnd(58)} ${value}\n`);
}

/** Raw baseline: sequential writes of `chunk` at growing positions of one file, fdatasync after each. */
class RawWriter {
  private readonly path = join(baseDirectory, `raw-${runs++}.bin`);
  private readonly fd = openSync(this.path, 'w+');
  private position = 0;

  constructor(preallocateBytes: number) {
    if (preallocateBytes > 0) {
      writeSync(this.fd, Buffer.alloc(1), 0, 1, preallocateBytes - 1);
      fdatasyncSync(this.fd);
    }
  }

  writeAndSync(chunk: Buffer): number {
    const start = performance.now();
    writeSync(this.fd, chunk, 0, chunk.length, this.position);
    fdatasyncSync(this.fd);
    this.position += chunk.length;
    return performance.now() - start;
  }

  /** The same with the fdatasync on libuv's thread pool, as the log's flush() does it. */
  async writeAndSyncAsync(chunk: Buffer): Promise<number> {
    const start = performance.now();
    writeSync(this.fd, chunk, 0, chunk.length, this.position);
    await new Promise<void>((resolve, reject) =>
      fdatasync(this.fd, (error) => (error ? reject(error) : resolve())),
    );
    this.position += chunk.length;
    return performance.now() - start;
  }

  close(): void {
    closeSync(this.fd);
    unlinkSync(this.path);
  }
}

async function appendAndFlush(log: RaftLog, records: MemoryRecords): Promise<number> {
  const start = performance.now();
  log.appendAsLeader(records, 1);
  await log.flush();
  return performance.now() - start;
}

/**
 * Runs raw and log operations alternately, one each per round, so both see the same disk
 * conditions on a shared, noisy machine. Returns the latencies of each, in ms.
 */
async function alternate(
  name: string,
  records: MemoryRecords,
  count: number,
  preallocate: boolean,
): Promise<{ raw: number[]; rawAsync: number[]; log: number[] }> {
  const segmentBytes = Math.max(8 * MEBIBYTE, records.sizeInBytes() * (count + 1));
  const raw = new RawWriter(preallocate ? segmentBytes : 0);
  const log = openLog(name, { preallocate, segmentBytes });
  const rawAsync = new RawWriter(preallocate ? segmentBytes : 0);
  const result = { raw: [] as number[], rawAsync: [] as number[], log: [] as number[] };
  for (let index = 0; index < count; index += 1) {
    result.raw.push(raw.writeAndSync(records.buffer()));
    result.rawAsync.push(await rawAsync.writeAndSyncAsync(records.buffer()));
    result.log.push(await appendAndFlush(log, records));
  }
  raw.close();
  rawAsync.close();
  log.close();
  return result;
}

function megabytesPerSecond(latenciesMs: readonly number[], bytesPerOp: number): number {
  const totalMs = latenciesMs.reduce((sum, each) => sum + each, 0);
  return (latenciesMs.length * bytesPerOp) / MEBIBYTE / (totalMs / 1000);
}

async function throughput(): Promise<void> {
  const records = batch(1024, 1024 - 12);
  const count = Math.max(8, Math.floor(throughputBytes / records.sizeInBytes()));
  process.stdout.write(
    `append + flush throughput, ${count} batches of ${(records.sizeInBytes() / MEBIBYTE).toFixed(2)} MiB, raw and log alternating\n`,
  );
  for (const preallocate of [false, true]) {
    const { raw, log } = await alternate(`throughput-${preallocate}`, records, count, preallocate);
    const rawRate = megabytesPerSecond(raw, records.sizeInBytes());
    const logRate = megabytesPerSecond(log, records.sizeInBytes());
    const kind = preallocate ? 'preallocated' : 'growing';
    row(`raw write + fdatasync, ${kind}`, `${rawRate.toFixed(0)} MB/s`);
    row(
      `RaftLog appendAsLeader + flush(), ${kind}`,
      `${logRate.toFixed(0)} MB/s  ratio log/raw ${(logRate / rawRate).toFixed(2)}`,
    );
  }
}

/** Prints p50/p99/max; returns the p99 in ms. */
function latencyLine(label: string, latencies: number[]): number {
  const sorted = [...latencies].sort((left, right) => left - right);
  const p99 = percentile(sorted, 0.99);
  row(
    label,
    `p50 ${percentile(sorted, 0.5).toFixed(3)} ms  p99 ${p99.toFixed(3)} ms  max ${(sorted.at(-1) ?? 0).toFixed(3)} ms`,
  );
  return p99;
}

async function smallAppendLatency(): Promise<void> {
  const records = batch(1, 1024 - 80);
  process.stdout.write(
    `1 KiB append + fsync latency, ${latencyOps} ops each (batch ${records.sizeInBytes()} B), raw and log alternating\n`,
  );
  for (const preallocate of [false, true]) {
    const { raw, rawAsync, log } = await alternate(
      `latency-${preallocate}`,
      records,
      latencyOps,
      preallocate,
    );
    const kind = preallocate ? 'preallocated' : 'growing';
    const rawP99 = latencyLine(`raw write + fdatasync, ${kind} file`, raw);
    latencyLine(`raw write + async fdatasync, ${kind} file`, rawAsync);
    const logP99 = latencyLine(`RaftLog append + flush(), ${kind} segment`, log);
    row(`P5: RaftLog p99 / raw fdatasync p99, ${kind}`, `${(logP99 / rawP99).toFixed(2)} (target <= 2)`);
  }
}

async function recovery(): Promise<void> {
  const records = batch(1024, 1024 - 12);
  const count = Math.max(1, Math.floor(recoveryBytes / records.sizeInBytes()));
  const totalMebibytes = ((count * records.sizeInBytes()) / MEBIBYTE).toFixed(0);
  process.stdout.write(
    `open after shutdown, ${totalMebibytes} MiB log in 1 GiB segments (page cache warm: a kill -9, not a power loss)\n`,
  );
  const writer = openLog('recovery');
  for (let index = 0; index < count; index += 1) writer.appendAsLeader(records, 1);
  await writer.flush();
  writer.close();
  let start = performance.now();
  const clean = openLog('recovery');
  const cleanMs = performance.now() - start;
  const endOffset = clean.endOffset();
  clean.close();
  unlinkSync(join(baseDirectory, 'recovery', '__cluster_metadata-0', CLEAN_SHUTDOWN_FILE));
  start = performance.now();
  const unclean = openLog('recovery');
  const uncleanMs = performance.now() - start;
  if (unclean.endOffset() !== endOffset)
    throw new Error(`recovered to ${unclean.endOffset()}, expected ${endOffset}`);
  unclean.close();
  const gigabytesPerSecond = (count * records.sizeInBytes()) / 1e9 / (uncleanMs / 1000);
  row(
    'P7: clean shutdown (marker present, no scan)',
    `${cleanMs.toFixed(1)} ms (target <= 1000 ms for 1 GiB)`,
  );
  row(
    'P7: unclean shutdown (CRC + offset scan of every batch)',
    `${uncleanMs.toFixed(1)} ms (${gigabytesPerSecond.toFixed(2)} GB/s; target <= 10000 ms for 1 GiB)`,
  );
}

try {
  await throughput();
  await smallAppendLatency();
  await recovery();
} finally {
  rmSync(baseDirectory, { recursive: true, force: true });
}
