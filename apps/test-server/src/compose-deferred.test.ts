import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Uuid } from '@kraft/protocol';
import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startServer } from './compose.js';
import { parseProperties } from './config/load-server-config.js';
import { parseServerConfig } from './config/server-config.js';

/**
 * The stats module is one of those compose loads after the driver starts (ADR 0046). Here its
 * load fails when the test says so, as it does under tsx once a terminal's Ctrl-C has also
 * stopped the transform service.
 */
const deferredLoad = vi.hoisted(() => {
  let failure: Error | undefined;
  const waiting: ((error: Error) => void)[] = [];
  return {
    /** What an import of the module waits on: it fails once `fail` has been called. */
    loading: () =>
      new Promise<never>((_, reject) => {
        if (failure === undefined) waiting.push(reject);
        else reject(failure);
      }),
    fail(error: Error): void {
      failure = error;
      for (const reject of waiting.splice(0)) reject(error);
    },
    reset(): void {
      failure = undefined;
    },
  };
});
vi.mock('./stats/commit-stats.js', () => deferredLoad.loading());

let directory: string | undefined;
afterEach(() => {
  deferredLoad.reset();
  if (directory !== undefined) rmSync(directory, { recursive: true, force: true });
  directory = undefined;
});

function singleNodeConfig(): ReturnType<typeof parseServerConfig>['config'] {
  directory = mkdtempSync(join(tmpdir(), 'kraft-compose-deferred-'));
  return parseServerConfig(
    parseProperties(
      `node.id=1\nlisteners=PLAINTEXT://127.0.0.1:0\ncontroller.listener.names=PLAINTEXT\n` +
        `controller.quorum.voters=1@127.0.0.1:1\nlog.dirs=${join(directory, 'logs')}\n`,
    ),
  ).config;
}

const commandLine = {
  configPath: 'unused',
  replicaDirectoryId: Uuid.fromString('b8tRS7h4TJ2Vt43Dp85v2A'),
  throughputRecordsPerSecond: 1,
  recordSizeBytes: 8,
};

describe('startServer while the deferred modules load', () => {
  it('stops cleanly when they fail to load after the stop was asked for', async () => {
    const server = await startServer({
      config: singleNodeConfig(),
      commandLine,
      logger: pino({ level: 'silent' }),
      writeStatsLine: () => {},
    });
    const shutdown = server.shutdown(2000);
    deferredLoad.fail(new Error('The service is no longer running'));
    await expect(shutdown).resolves.toBeUndefined();
    await expect(server.stopped).resolves.toBeUndefined();
  });

  it('fails the server when they fail to load while it runs', async () => {
    const server = await startServer({
      config: singleNodeConfig(),
      commandLine,
      logger: pino({ level: 'silent' }),
      writeStatsLine: () => {},
    });
    deferredLoad.fail(new Error('a module could not load'));
    // Vitest wraps a failing mock factory's error; the load failure is its cause.
    await expect(server.stopped).rejects.toSatisfy(
      (error) => error instanceof Error && String(error.cause).includes('a module could not load'),
    );
    await server.shutdown(2000);
  });
});
