import { Uuid } from '@kraft/protocol';
import { MemoryFileSystem } from '@kraft/records';
import { describe, expect, it } from 'vitest';
import { InvalidConfigurationError } from '../errors/log-errors.js';
import { LogStartOffsetCheckpointFile } from './log-start-offset-checkpoint-file.js';
import {
  formatJavaProperties,
  metaPropertiesFromMap,
  parseJavaProperties,
  readMetaProperties,
  verifyMetaProperties,
  writeMetaProperties,
} from './meta-properties.js';
import {
  formatPartitionMetadata,
  PartitionMetadataFile,
  parsePartitionMetadata,
} from './partition-metadata-file.js';

describe('partition.metadata', () => {
  it("writes Kafka's exact bytes and reads them back", () => {
    expect(formatPartitionMetadata(Uuid.METADATA_TOPIC_ID)).toBe(
      'version: 0\ntopic_id: AAAAAAAAAAAAAAAAAAAAAQ',
    );
    expect(
      parsePartitionMetadata('version: 0\ntopic_id: AAAAAAAAAAAAAAAAAAAAAQ\n').equals(Uuid.METADATA_TOPIC_ID),
    ).toBe(true);
    const fileSystem = new MemoryFileSystem();
    fileSystem.mkdir('/p');
    const file = new PartitionMetadataFile(fileSystem, '/p/partition.metadata');
    expect(file.read()).toBeUndefined();
    file.write(Uuid.METADATA_TOPIC_ID);
    fileSystem.crash();
    expect(file.read()?.toString()).toBe('AAAAAAAAAAAAAAAAAAAAAQ');
  });

  it.each([
    'version: 1\ntopic_id: AAAAAAAAAAAAAAAAAAAAAQ',
    'topic_id: AAAAAAAAAAAAAAAAAAAAAQ',
    'version: 0\ntopic_id: nope',
    'version: 0\nname: x',
  ])('rejects %j', (text) => {
    expect(() => parsePartitionMetadata(text)).toThrow(InvalidConfigurationError);
  });
});

describe('meta.properties', () => {
  it('parses Java Properties syntax', () => {
    const parsed = parseJavaProperties(
      '#\n#Thu Nov 30 02:10:00 UTC 2026\n! also a comment\nnode.id=1\ncluster.id : q1Sh-9_ISia_ZGc4iNTUBQ\nkey\\ with\\ space value\nlong = one \\\n    two\ncontroller.quorum.voters=1@localhost:9093,2@localhost:9094\nunicode=\\u00e9\n',
    );
    expect(Object.fromEntries(parsed)).toEqual({
      'node.id': '1',
      'cluster.id': 'q1Sh-9_ISia_ZGc4iNTUBQ',
      'key with space': 'value',
      long: 'one two',
      'controller.quorum.voters': '1@localhost:9093,2@localhost:9094',
      unicode: 'é',
    });
  });

  it('writes, reads and verifies a KRaft file', () => {
    const fileSystem = new MemoryFileSystem();
    fileSystem.mkdir('/log');
    const directoryId = Uuid.fromString('b8tRS7h4TJ2Vt43Dp85v2A');
    writeMetaProperties(
      fileSystem,
      '/log',
      { version: 1, nodeId: 1, clusterId: 'q1Sh-9_ISia_ZGc4iNTUBQ', directoryId },
      new Date(0),
    );
    const text = fileSystem.readFile('/log/meta.properties').toString('latin1');
    expect(text).toBe(
      '#\n#Thu Jan 01 00:00:00 UTC 1970\nnode.id=1\ndirectory.id=b8tRS7h4TJ2Vt43Dp85v2A\nversion=1\ncluster.id=q1Sh-9_ISia_ZGc4iNTUBQ\n',
    );
    fileSystem.crash();
    const read = readMetaProperties(fileSystem, '/log');
    expect(read).toMatchObject({ version: 1, nodeId: 1, clusterId: 'q1Sh-9_ISia_ZGc4iNTUBQ' });
    expect(read?.directoryId?.equals(directoryId)).toBe(true);
    expect(() =>
      verifyMetaProperties(read as never, { nodeId: 1, clusterId: 'q1Sh-9_ISia_ZGc4iNTUBQ' }),
    ).not.toThrow();
    expect(() => verifyMetaProperties(read as never, { nodeId: 2 })).toThrow(InvalidConfigurationError);
    expect(() => verifyMetaProperties(read as never, { nodeId: 1, clusterId: 'other' })).toThrow(
      InvalidConfigurationError,
    );
    expect(readMetaProperties(fileSystem, '/elsewhere')).toBeUndefined();
  });

  it('keeps unknown keys, escapes special characters, and rejects invalid files', () => {
    const map = new Map([['weird key=x', 'a:b#c\n']]);
    const text = formatJavaProperties(map, new Date(0));
    expect(parseJavaProperties(text).get('weird key=x')).toBe('a:b#c\n');
    expect(
      metaPropertiesFromMap(
        new Map([
          ['version', '0'],
          ['broker.id', '3'],
          ['x', 'y'],
        ]),
      ),
    ).toMatchObject({ version: 0, nodeId: 3 });
    expect(() => metaPropertiesFromMap(new Map([['version', '2']]))).toThrow(InvalidConfigurationError);
    expect(() =>
      metaPropertiesFromMap(
        new Map([
          ['version', '1'],
          ['cluster.id', 'c'],
        ]),
      ),
    ).toThrow(InvalidConfigurationError);
    expect(() =>
      metaPropertiesFromMap(
        new Map([
          ['version', '1'],
          ['node.id', 'x'],
          ['cluster.id', 'c'],
        ]),
      ),
    ).toThrow(InvalidConfigurationError);
    expect(() =>
      metaPropertiesFromMap(
        new Map([
          ['version', '1'],
          ['node.id', '1'],
          ['cluster.id', 'c'],
          ['directory.id', '!'],
        ]),
      ),
    ).toThrow(InvalidConfigurationError);
  });
});

describe('log-start-offset-checkpoint', () => {
  it("writes Kafka's format and keeps other partitions", () => {
    const fileSystem = new MemoryFileSystem();
    fileSystem.mkdir('/log');
    const file = new LogStartOffsetCheckpointFile(fileSystem, '/log/log-start-offset-checkpoint');
    expect(file.read('__cluster_metadata-0')).toBeUndefined();
    file.write('__cluster_metadata-0', 42);
    expect(fileSystem.readFile('/log/log-start-offset-checkpoint').toString()).toBe(
      '0\n1\n__cluster_metadata 0 42\n',
    );
    file.write('other-topic-3', 7);
    file.write('__cluster_metadata-0', 50);
    expect(file.read('__cluster_metadata-0')).toBe(50);
    expect(file.read('other-topic-3')).toBe(7);
    const handle = fileSystem.open('/log/log-start-offset-checkpoint', {});
    handle.write(Buffer.from('garbage'), 0);
    handle.close();
    expect(() => file.read('__cluster_metadata-0')).toThrow(InvalidConfigurationError);
    file.write('__cluster_metadata-0', 60);
    expect(file.read('__cluster_metadata-0')).toBe(60);
  });
});
