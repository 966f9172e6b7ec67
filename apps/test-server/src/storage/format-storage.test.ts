import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeMetaProperties } from '@kraft/log';
import { Uuid } from '@kraft/protocol';
import { NodeFileSystem } from '@kraft/records';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseProperties } from '../config/load-server-config.js';
import { parseServerConfig } from '../config/server-config.js';
import { applyFormat, planFormat } from './format-storage.js';
import { StorageRefusedError } from './storage-refused-error.js';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'kraft-format-storage-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('applyFormat', () => {
  it('refuses, and writes nothing, when the dir was formatted after planFormat looked', () => {
    const logDirectory = join(root, 'logs');
    const { config } = parseServerConfig(
      parseProperties(
        'node.id=1\nlisteners=CONTROLLER://localhost:9093\nlistener.security.protocol.map=CONTROLLER:PLAINTEXT\n' +
          `controller.listener.names=CONTROLLER\ncontroller.quorum.bootstrap.servers=localhost:9093\nlog.dirs=${logDirectory}\n`,
      ),
    );
    const fileSystem = new NodeFileSystem();
    const decision = planFormat(
      config,
      {
        configPath: 'unused',
        clusterId: 'c',
        initialControllers: { kind: 'standalone' },
        ignoreFormatted: false,
      },
      { fileSystem, partitionDirectoryName: '__raft_performance_test-0' },
    );
    expect(decision.kind).toBe('format');
    if (decision.kind !== 'format') return;
    fileSystem.mkdir(logDirectory);
    writeMetaProperties(fileSystem, logDirectory, {
      version: 1,
      clusterId: 'other',
      nodeId: 1,
      directoryId: Uuid.randomDirectoryId(),
    });
    expect(() => applyFormat(decision.plan, fileSystem, 0)).toThrow(StorageRefusedError);
    expect(() => applyFormat(decision.plan, fileSystem, 0)).toThrow(
      `Log directory ${logDirectory} was formatted while this format ran.`,
    );
    // No checkpoint, and the other format's meta.properties stays.
    expect(readdirSync(logDirectory).sort()).toEqual(['.lock', 'meta.properties']);
  });
});
