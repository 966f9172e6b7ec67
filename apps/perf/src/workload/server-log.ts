import { closeSync, fstatSync, openSync, readSync, statSync } from 'node:fs';

/** One JSON line of a test server's stderr (pino): `time` is the wall clock in ms, `msg` the message. */
export interface ServerLogLine {
  readonly time: number;
  readonly msg: string;
  readonly [field: string]: unknown;
}

/** What one start may log before the lines the scenarios look for; more is a runaway log, not a start. */
const MAX_READ_BYTES = 16 * 1024 * 1024;

/**
 * A node's stderr file (appended to across restarts) read from a mark on: `mark()` before a start,
 * then `find(message)` sees only that start's lines. Lines that are not JSON are skipped.
 */
export class ServerLog {
  private fromByte = 0;

  constructor(private readonly path: string) {}

  /** Later reads start at the file's current end. */
  mark(): void {
    try {
      this.fromByte = statSync(this.path).size;
    } catch {
      this.fromByte = 0;
    }
  }

  /** The lines written since the mark, oldest first. */
  lines(): ServerLogLine[] {
    let descriptor: number;
    try {
      descriptor = openSync(this.path, 'r');
    } catch {
      return [];
    }
    try {
      const length = Math.min(fstatSync(descriptor).size - this.fromByte, MAX_READ_BYTES);
      if (length <= 0) return [];
      const buffer = Buffer.alloc(length);
      const read = readSync(descriptor, buffer, 0, length, this.fromByte);
      const text = buffer.toString('utf8', 0, read);
      // A line still being written has no newline yet: only whole lines count.
      return text
        .slice(0, text.lastIndexOf('\n') + 1)
        .split('\n')
        .flatMap((line) => {
          if (!line.startsWith('{')) return [];
          try {
            const parsed = JSON.parse(line) as Partial<ServerLogLine>;
            return typeof parsed.msg === 'string' && typeof parsed.time === 'number'
              ? [parsed as ServerLogLine]
              : [];
          } catch {
            return [];
          }
        });
    } finally {
      closeSync(descriptor);
    }
  }

  /** The first line since the mark whose message is `message`. */
  find(message: string): ServerLogLine | undefined {
    return this.lines().find((line) => line.msg === message);
  }
}
