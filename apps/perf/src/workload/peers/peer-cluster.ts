// Three members of a peer system (etcd, ZooKeeper) as processes on 127.0.0.1: fresh dirs under one
// temp dir, ports bind-checked free, output to files, every process killed and the dir removed
// when the run ends (also on the runner's signal and exit handlers, through `PeerCluster.active`).
import { type ChildProcess, spawn } from 'node:child_process';
import { accessSync, constants, createWriteStream, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

export const PEER_HOST = '127.0.0.1';
export const PEER_MEMBERS = 3;

/** How to start one member: the command, its arguments, and files to write first. */
export interface PeerMemberLaunch {
  readonly command: string;
  readonly args: readonly string[];
}

/** Where `command` is on PATH (or as given, when it is a path), or undefined when it is not there. */
export function findExecutable(command: string, searchPath = process.env['PATH'] ?? ''): string | undefined {
  const candidates = command.includes('/')
    ? [command]
    : searchPath.split(delimiter).map((dir) => join(dir, command));
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here; try the next one
    }
  }
  return undefined;
}

export class PeerCluster {
  static readonly active = new Set<PeerCluster>();
  private readonly children: ChildProcess[] = [];
  readonly directory: string;

  constructor(
    readonly system: string,
    baseDirectory = tmpdir(),
  ) {
    this.directory = mkdtempSync(join(baseDirectory, `kraft-perf-${system}-`));
    PeerCluster.active.add(this);
  }

  /** A fresh dir for member `index` (1-based). */
  memberDirectory(index: number): string {
    const directory = join(this.directory, `m${index}`);
    mkdirSync(directory, { recursive: true });
    return directory;
  }

  /** Starts one member; its stdout and stderr go to `output.log` in its dir. */
  start(index: number, launch: PeerMemberLaunch): void {
    const output = createWriteStream(join(this.memberDirectory(index), 'output.log'));
    const child = spawn(launch.command, [...launch.args], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout?.pipe(output);
    child.stderr?.pipe(output);
    child.on('error', (error) => output.write(`spawn failed: ${error.message}\n`));
    this.children.push(child);
  }

  /** The members that exited already (a member that died is a failed run, not a slow one). */
  exitedMembers(): number {
    return this.children.filter((child) => child.exitCode !== null || child.signalCode !== null).length;
  }

  /** Kills every member and waits for it; removes the dir unless `keepDirectory`. */
  async destroy(keepDirectory: boolean): Promise<void> {
    PeerCluster.active.delete(this);
    await Promise.all(
      this.children.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            child.once('close', () => resolve());
            child.kill('SIGKILL');
          }),
      ),
    );
    if (!keepDirectory) rmSync(this.directory, { recursive: true, force: true });
  }

  /** Synchronous, for exit handlers: SIGKILL to every member, the dir removed. */
  destroyNow(): void {
    PeerCluster.active.delete(this);
    for (const child of this.children) if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(this.directory, { recursive: true, force: true });
  }
}
