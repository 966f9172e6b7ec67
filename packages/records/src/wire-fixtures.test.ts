import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildSnapshotFooterBatch, buildSnapshotHeaderBatch } from './control-batch-builders.js';
import { ControlRecordType } from './control-records.js';
import { FileRecords } from './file-records.js';
import { NodeFileSystem } from './fs/node-file-system.js';
import type { MemoryRecords } from './memory-records.js';
import { MemoryRecordsBuilder } from './memory-records-builder.js';
import { RecordsIterator } from './records-iterator.js';

const fixtures = join(import.meta.dirname, '..', 'test', 'fixtures');

function open(name: string): FileRecords {
  return FileRecords.open(join(fixtures, name), { mutable: false, fileSystem: new NodeFileSystem() });
}

describe('wire fixtures written by Kafka', () => {
  it('decodes vector A from a file and re-encodes it byte-identically', () => {
    const file = open('vector-a-data-batch.bin');
    const [batch] = [...new RecordsIterator(file)];
    file.close();
    expect(batch).toMatchObject({
      baseOffset: 5,
      lastOffset: 6,
      epoch: 3,
      isControl: false,
      sizeInBytes: 102,
    });
    const builder = new MemoryRecordsBuilder({
      baseOffset: batch?.baseOffset ?? -1,
      partitionLeaderEpoch: batch?.epoch ?? -1,
    });
    for (const record of batch?.records ?? [])
      builder.append({ timestamp: record.timestamp, key: record.key, value: record.value });
    expect(
      builder
        .build()
        .buffer()
        .equals(readFileSync(join(fixtures, 'vector-a-data-batch.bin'))),
    ).toBe(true);
  });

  it('decodes vector C from a file and re-encodes it byte-identically', () => {
    const file = open('vector-c-snapshot-header-footer.bin');
    const batches = [...new RecordsIterator(file)];
    file.close();
    const rebuilt = batches.map((batch) => {
      const [control] = batch.controlRecords;
      const options = {
        baseOffset: batch.baseOffset,
        partitionLeaderEpoch: batch.epoch,
        timestamp: control?.timestamp ?? -1,
      };
      if (control?.type === ControlRecordType.SNAPSHOT_HEADER)
        return buildSnapshotHeaderBatch(options, control.message);
      if (control?.type === ControlRecordType.SNAPSHOT_FOOTER)
        return buildSnapshotFooterBatch(options, control.message);
      throw new Error(`unexpected control record ${control?.type}`);
    });
    const bytes = Buffer.concat(rebuilt.map((records: MemoryRecords) => records.buffer()));
    expect(bytes.equals(readFileSync(join(fixtures, 'vector-c-snapshot-header-footer.bin')))).toBe(true);
  });
});
