import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { ChaosCluster } from './chaos-cluster.js';
import { checkDestinations } from './destinations.js';
import type { FinalRead } from './kv-check.js';
import type { KvClientConfig } from './kv-client-config.js';
import type { KvClientsSummary } from './kv-clients.js';
import { KV_HTTP_PORT, kvHttpUrl } from './kv-node.js';

const CLIENT_ENTRY = join(import.meta.dirname, 'kv-client-main.ts');
const LINE_PREFIX = 'kv-client ';

export interface KvClientSettings {
  readonly clients: number;
  readonly keys: number;
  readonly seed: number;
  readonly operationTimeoutMs: number;
  readonly maxOperationsPerKey: number;
  readonly maxWorkloadMs: number;
}

/**
 * The kv workload's client process in the run's client namespace, driven over its stdin and
 * stdout (`kv-client-main.ts`); adopted by the cluster, so that `destroy()` kills it.
 */
export class KvClientProcess {
  readonly historyPath: string;
  private readonly child: ChildProcess;
  private readonly lines: string[] = [];
  private readonly waiters = new Set<() => void>();
  private exitStatus: string | undefined;
  private stdinError: string | undefined;

  private constructor(child: ChildProcess, historyPath: string) {
    this.child = child;
    this.historyPath = historyPath;
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      if (line.startsWith(LINE_PREFIX)) this.lines.push(line.slice(LINE_PREFIX.length));
      this.wake();
    });
    // A write to a process that already ended fails with EPIPE: its end is reported through `close`.
    child.stdin?.on('error', (error) => {
      this.stdinError = error.message;
    });
    child.on('close', (code, signal) => {
      const how = signal === null ? `exit ${code}` : `signal ${signal}`;
      this.exitStatus = this.stdinError === undefined ? how : `${how}; its stdin: ${this.stdinError}`;
      this.wake();
    });
  }

  /** Writes the config (every origin checked against the run's addresses) and starts the process. */
  static start(cluster: ChaosCluster, settings: KvClientSettings): KvClientProcess {
    const network = cluster.network;
    const directory = join(cluster.directory, 'client');
    mkdirSync(directory, { recursive: true });
    const addresses = cluster.nodeIds.map((nodeId) => network.addressOf(nodeId));
    const config: KvClientConfig = {
      origins: addresses.map((address) => kvHttpUrl(address, KV_HTTP_PORT)),
      addresses,
      clients: settings.clients,
      keys: Array.from({ length: settings.keys }, (_, index) => `k${index}`),
      operationTimeoutMs: settings.operationTimeoutMs,
      maxOperationsPerKey: settings.maxOperationsPerKey,
      maxWorkloadMs: settings.maxWorkloadMs,
      historyPath: join(directory, 'history.jsonl'),
      seed: settings.seed,
    };
    checkDestinations('the kv clients', config.origins.join('\n'), (host) => network.owns(host));
    const configPath = join(directory, 'config.json');
    writeFileSync(configPath, JSON.stringify(config, null, 2));
    const stderr = openSync(join(directory, 'stderr.log'), 'a');
    let child: ChildProcess;
    try {
      child = spawn(
        'ip',
        [
          'netns',
          'exec',
          network.clientNamespace,
          process.execPath,
          '--conditions=@kraft/source',
          '--import',
          import.meta.resolve('tsx'),
          CLIENT_ENTRY,
          configPath,
        ],
        { stdio: ['pipe', 'pipe', stderr] },
      );
    } finally {
      closeSync(stderr);
    }
    cluster.adopt(child);
    return new KvClientProcess(child, config.historyPath);
  }

  /** Resolves once the clients run (the process loaded and read its config). */
  async ready(timeoutMs: number): Promise<void> {
    await this.nextLine('ready', timeoutMs);
  }

  /** The clients finish the operations they are in and stop. */
  stop(): void {
    this.send('stop');
  }

  /** The clients' own counts, once every one of them stopped. */
  async workloadDone(timeoutMs: number): Promise<KvClientsSummary> {
    return JSON.parse(await this.nextLine('workload', timeoutMs)) as KvClientsSummary;
  }

  /** Runs the final reads (a linearizable get per key, then every node's map) and waits for the exit. */
  async finalReads(timeoutMs: number): Promise<FinalRead[]> {
    this.send('final');
    const reads = JSON.parse(await this.nextLine('final', timeoutMs)) as FinalRead[];
    this.child.stdin?.end();
    return reads;
  }

  private send(command: string): void {
    this.child.stdin?.write(`${command}\n`);
  }

  private wake(): void {
    for (const waiter of [...this.waiters]) waiter();
  }

  /** The rest of the next `kv-client <word> ...` line; rejects on a timeout or an exit first. */
  private nextLine(word: string, timeoutMs: number): Promise<string> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => done(new Error(`the kv clients did not report '${word}' within ${timeoutMs} ms`)),
        timeoutMs,
      );
      const check = () => {
        const index = this.lines.findIndex((line) => line === word || line.startsWith(`${word} `));
        if (index >= 0) {
          const [line] = this.lines.splice(index, 1);
          return done(undefined, (line as string).slice(word.length + 1));
        }
        if (this.exitStatus !== undefined)
          done(new Error(`the kv clients ended (${this.exitStatus}) before reporting '${word}'`));
      };
      const done = (error: Error | undefined, rest = '') => {
        clearTimeout(timer);
        this.waiters.delete(check);
        if (error === undefined) resolve(rest);
        else reject(error);
      };
      this.waiters.add(check);
      check();
    });
  }
}
