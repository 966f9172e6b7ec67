import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync, readlinkSync, rmSync, statfsSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/** Each node's log dir tmpfs: ample for a run's log (a few MB), small enough to fill in an instant. */
const TMPFS_SIZE = '64m';
const FILLER_FILE = 'chaos-disk-filler';
/** The filler is written in 1 MiB chunks until the tmpfs refuses more. */
const FILL_CHUNK_BYTES = 1024 * 1024;
const COMMAND_TIMEOUT_MS = 10_000;

/**
 * A process (`sleep`) in a private mount namespace of its own, holding one tmpfs per node log dir:
 * the mounts live as long as the holder, so a node killed and restarted finds its data, and the
 * machine's own mount table never changes. The runner reads and fills the dirs through
 * `/proc/<pid>/root`, which resolves paths in the holder's mount namespace.
 */
export class MountHolder {
  private constructor(private readonly child: ChildProcess) {}

  static start(): MountHolder {
    const child = spawn('unshare', ['--mount', '--propagation', 'private', 'sleep', 'infinity'], {
      stdio: 'ignore',
    });
    return new MountHolder(child);
  }

  get pid(): number {
    const pid = this.child.pid;
    if (pid === undefined) throw new Error('the mount holder did not start');
    return pid;
  }

  /** Waits until unshare has moved into its namespace (its mount namespace differs from ours). */
  async ready(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      try {
        const ours = readlinkSync('/proc/self/ns/mnt');
        const theirs = readlinkSync(`/proc/${this.pid}/ns/mnt`);
        const command = readFileSync(`/proc/${this.pid}/comm`, 'utf8');
        if (ours !== theirs && command.trim() === 'sleep') return;
      } catch {
        // not there yet
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error('the mount holder did not enter its mount namespace in time');
  }

  /** Mounts a tmpfs on `directory` (an existing empty dir) inside the holder's namespace. */
  mountTmpfs(directory: string): void {
    execFileSync(
      'nsenter',
      [
        `--target=${this.pid}`,
        '--mount',
        '--',
        'mount',
        '-t',
        'tmpfs',
        '-o',
        `size=${TMPFS_SIZE}`,
        'kraftchaos',
        directory,
      ],
      { stdio: 'pipe', timeout: COMMAND_TIMEOUT_MS },
    );
  }

  /** `directory` as the runner sees it in the holder's namespace. */
  view(directory: string): string {
    return join(`/proc/${this.pid}/root`, directory);
  }

  /** Fills the tmpfs on `directory` to the last byte; returns the bytes written. */
  fill(directory: string): number {
    const path = join(this.view(directory), FILLER_FILE);
    const fd = openSync(path, 'a');
    const chunk = Buffer.alloc(FILL_CHUNK_BYTES);
    let written = 0;
    try {
      const { bsize, blocks } = statfsSync(this.view(directory));
      const limit = bsize * blocks;
      while (written < limit) {
        written += writeSync(fd, chunk, 0, Math.min(chunk.length, limit - written));
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
    } finally {
      closeSync(fd);
    }
    return written;
  }

  free(directory: string): void {
    rmSync(join(this.view(directory), FILLER_FILE), { force: true });
  }

  /** Ends the holder: its namespace and every tmpfs in it go with it. */
  stop(): void {
    this.child.kill('SIGKILL');
  }
}
