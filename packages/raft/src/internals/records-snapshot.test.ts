import { IllegalStateError } from '@kraft/protocol';
import { ControlRecordType } from '@kraft/records';
import { describe, expect, it } from 'vitest';
import { MockLog } from '../../test/kit/mock-log.js';
import { RecordsSnapshotReader } from './records-snapshot-reader.js';
import { RecordsSnapshotWriter } from './records-snapshot-writer.js';

function freshSnapshot(values: string[], maxBatchSizeBytes?: number) {
  const log = new MockLog();
  const raw = log.createNewSnapshotUnchecked({ offset: 10, epoch: 2 })!;
  const writer = new RecordsSnapshotWriter(raw, 777, maxBatchSizeBytes);
  writer.append(values.map((value) => Buffer.from(value)));
  writer.freeze();
  return { log, writer, reader: new RecordsSnapshotReader(log.readSnapshot({ offset: 10, epoch: 2 })!) };
}

describe('RecordsSnapshotWriter and RecordsSnapshotReader', () => {
  it('frame the records with a header and a footer and expose the ids', () => {
    const { reader } = freshSnapshot(['a', 'b']);
    const batches = [...reader];
    expect(batches[0]!.controlRecords.map((record) => record.type)).toEqual([
      ControlRecordType.SNAPSHOT_HEADER,
    ]);
    expect(batches.at(-1)!.controlRecords.map((record) => record.type)).toEqual([
      ControlRecordType.SNAPSHOT_FOOTER,
    ]);
    expect(batches.map((batch) => batch.baseOffset)).toEqual([0, 1, 3]);
    expect(reader.lastContainedLogTimestamp()).toBe(777);
    expect([reader.lastContainedLogOffset, reader.lastContainedLogEpoch]).toEqual([9, 2]);
  });

  it('split records into batches of the maximum size', () => {
    const { reader } = freshSnapshot(
      Array.from({ length: 20 }, (_, index) => `value-${index}`.padEnd(40, '.')),
      200,
    );
    const data = [...reader].filter((batch) => !batch.isControl);
    expect(data.length).toBeGreaterThan(1);
    expect(data.every((batch) => batch.sizeInBytes <= 200)).toBe(true);
    expect(data.flatMap((batch) => batch.records).length).toBe(20);
  });

  it('refuse appends after freeze', () => {
    const { writer } = freshSnapshot(['a']);
    expect(() => writer.append([Buffer.from('b')])).toThrow(IllegalStateError);
    expect(writer.isFrozen()).toBe(true);
  });

  it('abandoned writers leave no snapshot behind', () => {
    const log = new MockLog();
    const writer = new RecordsSnapshotWriter(log.createNewSnapshotUnchecked({ offset: 3, epoch: 1 })!, 0);
    writer.append([Buffer.from('x')]);
    writer.close();
    expect(log.latestSnapshotId()).toBeUndefined();
  });
});
