import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
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
import { TEST_SERVER_CLUSTER_ID } from './performance-test-topic.js';
import { BOOTSTRAP_CHECKPOINT_FILE, bootstrapCheckpointBytes } from './storage/bootstrap-checkpoint.js';
import { BootstrapCheckpointError } from './storage/bootstrap-checkpoint-error.js';
import { parseDynamicVoters } from './storage/dynamic-voters.js';
import { runStorageTool } from './storage/run-storage-tool.js';
import { UnformattedLogDirectoryError } from './storage/unformatted-log-directory-error.js';
import { UnsupportedKRaftVersionError } from './storage/unsupported-kraft-version-error.js';

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

  it('runs a config with bootstrap servers only as a kraft.version 1 observer', async () => {
    directory = mkdtempSync(join(tmpdir(), 'kraft-compose-'));
    const logDirectory = join(directory, 'logs');
    const { config } = parseServerConfig(
      parseProperties(
        `node.id=1\nlisteners=PLAINTEXT://127.0.0.1:0\ncontroller.listener.names=PLAINTEXT\n` +
          `controller.quorum.bootstrap.servers=127.0.0.1:1\nlog.dirs=${logDirectory}\n`,
      ),
    );
    const lines: Record<string, unknown>[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
    const server = await startServer({ config, commandLine, logger, writeStatsLine: () => {} });
    await server.shutdown(2000);
    expect(
      lines.find((line) => line['msg'] === 'an observer without a leader asks the bootstrap servers'),
    ).toMatchObject({ bootstrapServers: ['127.0.0.1:1'] });
    expect(lines.find((line) => String(line['msg']).startsWith('dynamic quorum without'))).toMatchObject({
      kraftVersion: 1,
    });
  });
});

describe('startServer on a log dir formatted by kraft-storage.sh', () => {
  const DIRECTORY_ID = 'Nkij_D9XRiYKNb41SiJo7Q';

  /** A single-voter static config on port 0 in a fresh temp dir, its file, and its parsed form. */
  function staticConfig(extra = '') {
    directory = mkdtempSync(join(tmpdir(), 'kraft-compose-'));
    const logDirectory = join(directory, 'logs');
    const text =
      'node.id=1\nlisteners=PLAINTEXT://127.0.0.1:0\ncontroller.listener.names=PLAINTEXT\n' +
      `controller.quorum.voters=1@127.0.0.1:9\nlog.dirs=${logDirectory}\n${extra}`;
    const path = join(directory, 'server.properties');
    writeFileSync(path, text);
    return { path, logDirectory, config: parseServerConfig(parseProperties(text)).config };
  }

  function storageTool(...argv: string[]): number {
    return runStorageTool(argv, {
      stdoutLine: () => {},
      stderrText: (text) => {
        throw new Error(`kraft-storage refused: ${text}`);
      },
      newDirectoryId: () => Uuid.fromString(DIRECTORY_ID),
    });
  }

  function capturingLogger() {
    const lines: Record<string, unknown>[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
    return { logger, lines };
  }

  it('--require-formatted refuses an unformatted dir and writes no meta.properties', async () => {
    const { logDirectory, config } = staticConfig();
    const attempt = startServer({
      config,
      commandLine: {
        configPath: 'unused',
        requireFormatted: true,
        throughputRecordsPerSecond: 1,
        recordSizeBytes: 8,
      },
      logger: pino({ level: 'silent' }),
      writeStatsLine: () => {},
    });
    await expect(attempt).rejects.toSatisfy(
      (error) =>
        UnformattedLogDirectoryError.isUnformattedLogDirectoryError(error) &&
        error.directory === logDirectory &&
        error.message.includes('--require-formatted'),
    );
    expect(existsSync(join(logDirectory, 'meta.properties'))).toBe(false);
  });

  it.each([
    ['with --require-formatted and no --replica-directory-id', { requireFormatted: true }],
    [
      'by default, with the matching --replica-directory-id',
      { replicaDirectoryId: Uuid.fromString(DIRECTORY_ID) },
    ],
  ])('runs %s, with the cluster and directory ids meta.properties holds', async (_how, flags) => {
    const { path, logDirectory, config } = staticConfig();
    expect(storageTool('format', '--config', path, '--cluster-id', 'a-cluster')).toBe(0);
    const before = readFileSync(join(logDirectory, 'meta.properties'));
    const { logger, lines } = capturingLogger();
    const server = await startServer({
      config,
      commandLine: { configPath: path, throughputRecordsPerSecond: 1, recordSizeBytes: 8, ...flags },
      logger,
      writeStatsLine: () => {},
    });
    await server.shutdown(2000);
    expect(lines.find((line) => line['msg'] === 'log directory checked')).toMatchObject({
      formatted: false,
      clusterId: 'a-cluster',
      directoryId: DIRECTORY_ID,
    });
    expect(readFileSync(join(logDirectory, 'meta.properties'))).toEqual(before);
  });

  it('formats an unformatted dir with the zero cluster id by default, as before', async () => {
    const { config, logDirectory } = staticConfig();
    const { logger, lines } = capturingLogger();
    const server = await startServer({
      config,
      commandLine: { configPath: 'unused', throughputRecordsPerSecond: 1, recordSizeBytes: 8 },
      logger,
      writeStatsLine: () => {},
    });
    await server.shutdown(2000);
    const formatted = lines.find((line) => line['msg'] === 'formatted log directory');
    expect(formatted).toMatchObject({ clusterId: TEST_SERVER_CLUSTER_ID });
    // No --replica-directory-id: a random one, written to meta.properties and used from then on.
    expect(readFileSync(join(logDirectory, 'meta.properties'), 'latin1')).toContain(
      `directory.id=${formatted?.['directoryId'] as string}`,
    );
  });

  /** Writes a kraft.version 1 bootstrap checkpoint naming voter 1 into `partition`; returns its path. */
  function writeDynamicCheckpoint(logDirectory: string, partition: string): string {
    const checkpoint = join(logDirectory, partition, BOOTSTRAP_CHECKPOINT_FILE);
    mkdirSync(join(logDirectory, partition), { recursive: true });
    writeFileSync(
      checkpoint,
      bootstrapCheckpointBytes({
        voters: parseDynamicVoters(`1@127.0.0.1:9:${DIRECTORY_ID}`),
        listenerName: 'PLAINTEXT',
        timestampMs: 1,
      }),
    );
    return checkpoint;
  }

  it("refuses a kraft.version 1 checkpoint in Kafka's __cluster_metadata-0, naming the file, and leaves the dir as it was", async () => {
    const { logDirectory, config } = staticConfig();
    const checkpoint = writeDynamicCheckpoint(logDirectory, '__cluster_metadata-0');
    const attempt = startServer({
      config,
      commandLine: { configPath: 'unused', throughputRecordsPerSecond: 1, recordSizeBytes: 8 },
      logger: pino({ level: 'silent' }),
      writeStatsLine: () => {},
    });
    await expect(attempt).rejects.toSatisfy(
      (error) =>
        UnsupportedKRaftVersionError.isUnsupportedKRaftVersionError(error) &&
        error.path === checkpoint &&
        error.kraftVersion === 1 &&
        error.message.includes('__raft_performance_test-0'),
    );
    expect(readdirSync(logDirectory)).toEqual(['__cluster_metadata-0']);
  });

  it('runs a kraft.version 1 checkpoint beside controller.quorum.voters with the checkpoint voters, and warns', async () => {
    const { logDirectory, config } = staticConfig();
    writeDynamicCheckpoint(logDirectory, '__raft_performance_test-0');
    const { logger, lines } = capturingLogger();
    const server = await startServer({
      config,
      commandLine: {
        configPath: 'unused',
        replicaDirectoryId: Uuid.fromString(DIRECTORY_ID),
        throughputRecordsPerSecond: 1,
        recordSizeBytes: 8,
      },
      logger,
      writeStatsLine: () => {},
    });
    await server.shutdown(2000);
    expect(lines.find((line) => String(line['msg']).startsWith('dynamic quorum: voters from'))).toMatchObject(
      {
        kraftVersion: 1,
        otherVoters: 0,
      },
    );
    expect(
      lines.find((line) => String(line['msg']).startsWith('controller.quorum.voters is set beside')),
    ).toMatchObject({ level: 40 });
  });

  it('refuses a bootstrap checkpoint it cannot read rather than ignore it', async () => {
    const { logDirectory, config } = staticConfig();
    mkdirSync(join(logDirectory, '__raft_performance_test-0'), { recursive: true });
    writeFileSync(join(logDirectory, '__raft_performance_test-0', BOOTSTRAP_CHECKPOINT_FILE), 'garbage');
    const attempt = startServer({
      config,
      commandLine: { configPath: 'unused', throughputRecordsPerSecond: 1, recordSizeBytes: 8 },
      logger: pino({ level: 'silent' }),
      writeStatsLine: () => {},
    });
    await expect(attempt).rejects.toSatisfy((error) =>
      BootstrapCheckpointError.isBootstrapCheckpointError(error),
    );
  });
});
