import { createHash, type Hash } from 'node:crypto';

/**
 * The run's event trace: every line feeds a SHA-256 (the trace hash, equal for two runs of one
 * seed iff they behaved identically) and a bounded ring of recent lines printed on failure.
 */
export class Trace {
  private readonly hash: Hash = createHash('sha256');
  private readonly recent: string[];
  private nextSlot = 0;
  private lineCount = 0;
  private digest: string | undefined;

  constructor(private readonly capacityLines = 4000) {
    this.recent = new Array<string>(capacityLines);
  }

  record(timeMs: number, line: string): void {
    const text = `${timeMs} ${line}`;
    this.hash.update(text);
    this.hash.update('\n');
    this.recent[this.nextSlot] = text;
    this.nextSlot = (this.nextSlot + 1) % this.capacityLines;
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
      result.push(this.recent[slot] as string);
    }
    return result;
  }

  /** Finishes the hash; later records are not allowed. */
  finish(): string {
    this.digest ??= this.hash.digest('hex');
    return this.digest;
  }
}
