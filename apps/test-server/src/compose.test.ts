import { existsSync, mkdtempSync, rmSync } from 'node:fs';
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

describe('startServer', () => {
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
