import { createHash, type Hash } from 'node:crypto';

/** Text buffered before it is fed to the hash: one `update` per chunk instead of two per line. */
const HASH_CHUNK_CHARACTERS = 64 * 1024;

/**
 * The run's event trace: every line feeds a SHA-256 (the trace hash, equal for two runs of one
 * seed iff they behaved identically) and a bounded ring of recent lines printed on failure.
 *
 * Hot path: a seed records a line per event. SHA-256 is a stream, so hashing the lines in 64 KiB
 * chunks gives the same digest as hashing each `${timeMs} ${line}\n` on its own; the ring keeps
 * the time and the line apart and joins them only when `tail()` is asked for.
 */
export class Trace {
  private readonly hash: Hash = createHash('sha256');
  private readonly recentLines: string[];
  private readonly recentTimesMs: Float64Array;
  private nextSlot = 0;
  private lineCount = 0;
  private pendingText = '';
  private digest: string | undefined;

  constructor(private readonly capacityLines = 4000) {
    this.recentLines = new Array<string>(capacityLines);
    this.recentTimesMs = new Float64Array(capacityLines);
  }

  record(timeMs: number, line: string): void {
    this.pendingText += `${timeMs} ${line}\n`;
    if (this.pendingText.length >= HASH_CHUNK_CHARACTERS) this.flushPendingText();
    this.recentLines[this.nextSlot] = line;
    this.recentTimesMs[this.nextSlot] = timeMs;
    this.nextSlot = this.nextSlot + 1 === this.capacityLines ? 0 : this.nextSlot + 1;
    this.lineCount += 1;
  }

  lines(): number {
    return this.lineCount;
  }

  /** The last lines recorded, oldest first (at most the ring capacity). */
  tail(count = this.capacityLines): string[] {
    const kept = Math.min(count, this.lineCount, this.capacityLines);
    const result: string[] = [];
    for (let back = kept; back >= 1; back -= 1) {
      const slot = (this.nextSlot - back + this.capacityLines) % this.capacityLines;
      result.push(`${this.recentTimesMs[slot]} ${this.recentLines[slot] as string}`);
    }
    return result;
  }

  /** Finishes the hash; later records are not allowed. */
  finish(): string {
    if (this.digest === undefined) {
      this.flushPendingText();
      this.digest = this.hash.digest('hex');
    }
    return this.digest;
  }

  private flushPendingText(): void {
    if (this.pendingText.length === 0) return;
    this.hash.update(this.pendingText);
    this.pendingText = '';
  }
}
