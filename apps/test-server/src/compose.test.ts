import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Uuid } from '@kraft/protocol';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { startServer } from './compose.js';
import { ConfigError } from './config/config-error.js';
import { parseProperties } from './config/load-server-config.js';
import { parseServerConfig } from './config/server-config.js';

let directory: string | undefined;
afterEach(() => {
  if (directory !== undefined) rmSync(directory, { recursive: true, force: true });
  directory = undefined;
});

const commandLine = {
  configPath: 'unused',
  replicaDirectoryId: Uuid.fromString('b8tRS7h4TJ2Vt43Dp85v2A'),
  throughputRecordsPerSecond: 1,
  recordSizeBytes: 8,
};

async function listenOnFreePort(): Promise<Server> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

describe('startServer', () => {
  it('refuses a port already in use before the log dir is formatted', async () => {
    directory = mkdtempSync(join(tmpdir(), 'kraft-compose-'));
    const logDirectory = join(directory, 'logs');
    const occupier = await listenOnFreePort();
    try {
      const { port } = occupier.address() as { port: number };
      const { config } = parseServerConfig(
        parseProperties(
          `node.id=1\nlisteners=PLAINTEXT://127.0.0.1:${port}\ncontroller.listener.names=PLAINTEXT\n` +
            `controller.quorum.voters=1@127.0.0.1:${port}\nlog.dirs=${logDirectory}\n`,
        ),
      );
      const attempt = startServer({
        config,
        commandLine,
        logger: pino({ level: 'silent' }),
        writeStatsLine: () => {},
      });
      await expect(attempt).rejects.toSatisfy(
        (error) =>
          ConfigError.isConfigError(error) &&
          error.key === 'listeners' &&
          error.message.includes(`PLAINTEXT://127.0.0.1:${port}`) &&
          error.message.includes('EADDRINUSE'),
      );
      expect(existsSync(join(logDirectory, 'meta.properties'))).toBe(false);
      // Only the log-dir lock, taken before anything else (as Kafka's `.lock`), was created.
      const entries = existsSync(logDirectory) ? readdirSync(logDirectory) : [];
      expect(entries.filter((name) => name !== '.lock')).toEqual([]);
    } finally {
      await new Promise((resolve) => occupier.close(resolve));
    }
  });

  it('refuses a dynamic quorum (bootstrap servers only) before touching the log dir', async () => {
    directory = mkdtempSync(join(tmpdir(), 'kraft-compose-'));
    const logDirectory = join(directory, 'logs');
    const { config } = parseServerConfig(
      parseProperties(
        `node.id=1\nlisteners=PLAINTEXT://127.0.0.1:0\ncontroller.listener.names=PLAINTEXT\n` +
          `controller.quorum.bootstrap.servers=127.0.0.1:1\nlog.dirs=${logDirectory}\n`,
      ),
    );
    const attempt = startServer({
      config,
      commandLine: {
        configPath: 'unused',
        replicaDirectoryId: Uuid.fromString('b8tRS7h4TJ2Vt43Dp85v2A'),
        throughputRecordsPerSecond: 1,
        recordSizeBytes: 8,
      },
      logger: pino({ level: 'silent' }),
      writeStatsLine: () => {},
    });
    await expect(attempt).rejects.toSatisfy(
      (error) => ConfigError.isConfigError(error) && error.message.includes('static quorums'),
    );
    expect(existsSync(logDirectory)).toBe(false);
  });
});
