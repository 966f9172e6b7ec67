import { join } from 'node:path';
import { META_PROPERTIES_FILE, readMetaProperties } from '@kraft/log';
import { Uuid } from '@kraft/protocol';
import { MemoryFileSystem } from '@kraft/records';
import { describe, expect, it } from 'vitest';
import { LogDirectoryError } from '../errors/log-directory-error.js';
import { ensureLogDirectoryFormatted } from './log-directory-format.js';

const directory = '/tmp/kraft-logs-1';
const metaPropertiesPath = join(directory, META_PROPERTIES_FILE);
const expected = {
  clusterId: Uuid.ZERO.toString(),
  nodeId: 1,
  directoryId: Uuid.fromString('b8tRS7h4TJ2Vt43Dp85v2A'),
};

function writeFile(fileSystem: MemoryFileSystem, path: string, text: string): void {
  const handle = fileSystem.open(path, { create: true });
  handle.write(Buffer.from(text), 0);
  handle.close();
}

function readFile(fileSystem: MemoryFileSystem, path: string): string {
  const handle = fileSystem.open(path, { readOnly: true });
  const bytes = Buffer.alloc(handle.size());
  handle.read(bytes, 0, bytes.length, 0);
  handle.close();
  return bytes.toString();
}

function refusal(body: () => void): LogDirectoryError {
  try {
    body();
  } catch (error) {
    if (LogDirectoryError.isLogDirectoryError(error)) return error;
    throw error;
  }
  throw new Error('expected a LogDirectoryError');
}

/** The outcome with the directory id as text (Uuids read from a file share a pooled buffer). */
function format(
  fileSystem: MemoryFileSystem,
  owner: Parameters<typeof ensureLogDirectoryFormatted>[2],
): { formatted: boolean; directoryId: string } {
  const { formatted, directoryId } = ensureLogDirectoryFormatted(fileSystem, directory, owner);
  return { formatted, directoryId: directoryId.toString() };
}

describe('ensureLogDirectoryFormatted', () => {
  it('formats an empty directory durably, then accepts it on the next start', () => {
    const fileSystem = new MemoryFileSystem();
    expect(format(fileSystem, expected)).toEqual({
      formatted: true,
      directoryId: expected.directoryId.toString(),
    });
    fileSystem.crash();
    const text = readFile(fileSystem, metaPropertiesPath);
    expect(text).toContain('cluster.id=AAAAAAAAAAAAAAAAAAAAAA\n');
    expect(text).toContain('directory.id=b8tRS7h4TJ2Vt43Dp85v2A\n');
    expect(text).toContain('node.id=1\n');
    expect(text).toContain('version=1\n');
    expect(readMetaProperties(fileSystem, directory)?.nodeId).toBe(1);
    expect(format(fileSystem, expected)).toEqual({
      formatted: false,
      directoryId: expected.directoryId.toString(),
    });
  });

  it('writes a random directory id when none is given and adopts the one on disk afterwards', () => {
    const fileSystem = new MemoryFileSystem();
    const owner = { clusterId: expected.clusterId, nodeId: 1 };
    const first = format(fileSystem, owner);
    expect(first.formatted).toBe(true);
    expect(readMetaProperties(fileSystem, directory)?.directoryId?.toString()).toBe(first.directoryId);
    expect(format(fileSystem, owner)).toEqual({ formatted: false, directoryId: first.directoryId });
  });

  it('accepts a file Kafka wrote for this node', () => {
    const fileSystem = new MemoryFileSystem();
    fileSystem.mkdir(directory);
    writeFile(
      fileSystem,
      metaPropertiesPath,
      '#\n#Tue Nov 11 10:00:00 UTC 2025\nnode.id=1\ndirectory.id=b8tRS7h4TJ2Vt43Dp85v2A\nversion=1\ncluster.id=AAAAAAAAAAAAAAAAAAAAAA\n',
    );
    expect(format(fileSystem, expected)).toEqual({
      formatted: false,
      directoryId: expected.directoryId.toString(),
    });
  });

  it.each([
    [{ nodeId: 2 }, 'node.id is 1 but the config has node.id=2'],
    [
      { directoryId: Uuid.fromString('Nkij_D9XRiYKNb41SiJo7Q') },
      'directory.id is b8tRS7h4TJ2Vt43Dp85v2A but the node was given directory id Nkij_D9XRiYKNb41SiJo7Q',
    ],
    [{ clusterId: 'MkU3OEVBNTcwNTJENDM2Qg' }, 'cluster.id is AAAAAAAAAAAAAAAAAAAAAA'],
  ])('refuses a directory formatted for another node (%j) and leaves it untouched', (change, message) => {
    const fileSystem = new MemoryFileSystem();
    ensureLogDirectoryFormatted(fileSystem, directory, expected);
    const before = readFile(fileSystem, metaPropertiesPath);
    const error = refusal(() =>
      ensureLogDirectoryFormatted(fileSystem, directory, { ...expected, ...change }),
    );
    expect(error.message).toContain(message);
    expect(error.message).toContain('refusing to use or overwrite it');
    expect(readFile(fileSystem, metaPropertiesPath)).toBe(before);
  });

  it.each([
    ['version=0\nbroker.id=1\ncluster.id=AAAAAAAAAAAAAAAAAAAAAA\n', 'version is 0, KRaft requires 1'],
    ['version=1\ncluster.id=AAAAAAAAAAAAAAAAAAAAAA\nnode.id=1\n', 'it has no directory.id'],
    ['version=1\ncluster.id=x\ndirectory.id=b8tRS7h4TJ2Vt43Dp85v2A\n', 'cannot be used'],
    ['version=1\ncluster.id=x\nnode.id=one\ndirectory.id=b8tRS7h4TJ2Vt43Dp85v2A\n', 'cannot be used'],
    ['version=1\ncluster.id=x\nnode.id=1\ndirectory.id=nope\n', 'cannot be used'],
    ['version=7\n', 'cannot be used'],
  ])('refuses an unusable meta.properties (%j) without touching it', (text, message) => {
    const fileSystem = new MemoryFileSystem();
    fileSystem.mkdir(directory);
    writeFile(fileSystem, metaPropertiesPath, text);
    expect(refusal(() => ensureLogDirectoryFormatted(fileSystem, directory, expected)).message).toContain(
      message,
    );
    expect(readFile(fileSystem, metaPropertiesPath)).toBe(text);
  });
});
