import { describe, expect, it } from 'vitest';
import { parseSnapshotFileName, partialSnapshotFilePath, snapshotFileName } from './snapshot-path.js';

describe('snapshot paths', () => {
  it("names snapshots %020d-%010d.checkpoint as Kafka's Snapshots does", () => {
    expect(snapshotFileName({ offset: 1234, epoch: 5 })).toBe('00000000000000001234-0000000005.checkpoint');
    expect(partialSnapshotFilePath('/d', { offset: 1, epoch: 2 }, 'abc')).toBe(
      '/d/00000000000000000001-0000000002-abc.checkpoint.part',
    );
  });

  it('parses complete, partial and deleted names and ignores everything else', () => {
    expect(parseSnapshotFileName('00000000000000001234-0000000005.checkpoint')).toEqual({
      name: '00000000000000001234-0000000005.checkpoint',
      snapshotId: { offset: 1234, epoch: 5 },
      partial: false,
      deleted: false,
    });
    expect(parseSnapshotFileName('00000000000000001234-0000000005-4f3a.checkpoint.part')).toMatchObject({
      partial: true,
      deleted: false,
    });
    expect(parseSnapshotFileName('00000000000000001234-0000000005.checkpoint.deleted')).toMatchObject({
      partial: false,
      deleted: true,
    });
    for (const name of [
      '00000000000000001234.log',
      'leader-epoch-checkpoint',
      '1234-5.checkpoint',
      '00000000000000001234-0000000005.checkpoint.tmp',
    ]) {
      expect(parseSnapshotFileName(name)).toBeUndefined();
    }
  });
});
