import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** What the kernel says a process used, read from /proc (Linux only). */
export interface ProcessUsage {
  /** utime + stime (`/proc/<pid>/stat` fields 14 and 15) in seconds. */
  readonly cpuSeconds: number;
  /** VmHWM (`/proc/<pid>/status`): the peak resident set size, in bytes. */
  readonly peakRssBytes: number;
  /** write_bytes (`/proc/<pid>/io`): bytes the process caused to be written to storage. */
  readonly writeBytes: number;
  /** read_bytes (`/proc/<pid>/io`): bytes the process caused to be read from storage (not the page cache). */
  readonly readBytes: number;
  /** rchar (`/proc/<pid>/io`): bytes its read calls returned, page cache and sockets included. */
  readonly readChars: number;
}

let clockTicksPerSecond: number | undefined;

/** `getconf CLK_TCK` (the unit of /proc/<pid>/stat's times); 100 on every Linux this runs on, read anyway. */
function ticksPerSecond(): number {
  if (clockTicksPerSecond === undefined) {
    const text = execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim();
    const value = Number(text);
    clockTicksPerSecond = Number.isSafeInteger(value) && value > 0 ? value : 100;
  }
  return clockTicksPerSecond;
}

/** Parses the three files' text; exported for its unit test. */
export function parseProcessUsage(stat: string, status: string, io: string, ticks: number): ProcessUsage {
  // The command name (field 2) may hold spaces and parentheses: fields are counted after its last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  const hwm = /^VmHWM:\s+(\d+) kB$/m.exec(status);
  const ioField = (name: string) => {
    const match = new RegExp(`^${name}:\\s+(\\d+)$`, 'm').exec(io);
    return match === null ? 0 : Number(match[1]);
  };
  return {
    cpuSeconds: (utime + stime) / ticks,
    peakRssBytes: hwm === null ? 0 : Number(hwm[1]) * 1024,
    writeBytes: ioField('write_bytes'),
    readBytes: ioField('read_bytes'),
    readChars: ioField('rchar'),
  };
}

/** The process's usage now, or undefined once it is gone. */
export function readProcessUsage(pid: number): ProcessUsage | undefined {
  try {
    return parseProcessUsage(
      readFileSync(`/proc/${pid}/stat`, 'utf8'),
      readFileSync(`/proc/${pid}/status`, 'utf8'),
      readFileSync(`/proc/${pid}/io`, 'utf8'),
      ticksPerSecond(),
    );
  } catch {
    return undefined;
  }
}

/**
 * Samples processes until they stop: /proc disappears with the process, so the last sample taken
 * while it ran is its figure (the runner takes one just before it stops the nodes).
 */
export class ProcessUsageSampler {
  private readonly last = new Map<number, ProcessUsage>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly pids: () => ReadonlyMap<number, number | undefined>) {}

  start(intervalMs: number): void {
    this.sample();
    this.timer = setInterval(() => this.sample(), intervalMs);
    this.timer.unref();
  }

  sample(): void {
    for (const [nodeId, pid] of this.pids()) {
      if (pid === undefined) continue;
      const usage = readProcessUsage(pid);
      if (usage !== undefined) this.last.set(nodeId, usage);
    }
  }

  stop(): ReadonlyMap<number, ProcessUsage> {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    return this.last;
  }
}
