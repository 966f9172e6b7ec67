import { describe, expect, it } from 'vitest';
import {
  type CommittedRecord,
  checkHistory,
  type HistoryEvent,
  parseHistory,
  readRecordTag,
} from './history-checker.js';

function event(
  type: HistoryEvent['type'],
  firstSequence: number,
  count: number,
  extra: Partial<HistoryEvent> = {},
): HistoryEvent {
  return { type, node: 1, epoch: 2, firstSequence, count, monotonicUs: 0, ...extra };
}

function record(offset: number, sequence: number, node = 1, epoch = 2): CommittedRecord {
  return { offset, tag: { node, epoch, sequence } };
}

/** Two acknowledged operations of node 1 in epoch 2: sequences 0-1 at offsets 1-2, 2-4 at 3-5. */
const acknowledged: HistoryEvent[] = [
  event('invoke', 0, 2),
  event('invoke', 2, 3),
  event('ok', 0, 2, { firstOffset: 1 }),
  event('ok', 2, 3, { firstOffset: 3 }),
];
const intact = [record(1, 0), record(2, 1), record(3, 2), record(4, 3), record(5, 4)];

describe('checkHistory', () => {
  it('passes a log holding every acknowledged record once, in order, where it was acknowledged', () => {
    const check = checkHistory(acknowledged, intact);
    expect(check.valid).toBe(true);
    expect(check.counts).toMatchObject({ operations: 2, acked: 5, committed: 5, lost: 0, duplicated: 0 });
  });

  it('reports a lost acknowledged record', () => {
    const check = checkHistory(acknowledged, intact.slice(0, 4));
    expect(check.valid).toBe(false);
    expect(check.counts.lost).toBe(1);
    expect(check.problems).toEqual(['lost: (node:epoch:sequence 1:2:4) acknowledged at offset 5']);
  });

  it('reports a duplicated record', () => {
    const check = checkHistory(acknowledged, [...intact, record(6, 3)]);
    expect(check.valid).toBe(false);
    expect(check.counts).toMatchObject({ duplicated: 1, lost: 0, unexpected: 0 });
    expect(check.problems[0]).toBe('duplicated: (node 1, epoch 2, sequence 3) again at offset 6');
  });

  it('reports a reordered record (and the acknowledged offsets it broke)', () => {
    const swapped = [record(1, 0), record(2, 1), record(3, 3), record(4, 2), record(5, 4)];
    const check = checkHistory(acknowledged, swapped);
    expect(check.valid).toBe(false);
    expect(check.counts).toMatchObject({ reordered: 1, misplaced: 2, lost: 0 });
    expect(check.problems).toContain('reordered: (node 1, epoch 2, sequence 2) at offset 4 after sequence 3');
  });

  it('reports committed records never invoked, refused, or untagged as unexpected', () => {
    const events = [...acknowledged, event('invoke', 5, 1), event('fail', 5, 1, { error: 'NOT_LEADER' })];
    const committed = [...intact, record(6, 5), record(7, 9), { offset: 8, tag: undefined }];
    const check = checkHistory(events, committed);
    expect(check.counts).toMatchObject({ unexpected: 3, failed: 1, acked: 5 });
    expect(check.problems).toContain(
      'unexpected: (node 1, epoch 2, sequence 5) at offset 6, of a refused (fail) operation',
    );
    expect(check.problems).toContain('unexpected: (node 1, epoch 2, sequence 9) at offset 7, never invoked');
  });

  it('counts indeterminate records (info or never completed), committed or not, without failing', () => {
    const events = [
      ...acknowledged,
      event('invoke', 5, 2),
      event('info', 5, 2, { firstOffset: 6 }),
      event('invoke', 7, 1),
    ];
    const check = checkHistory(events, [...intact, record(6, 5)]);
    expect(check.valid).toBe(true);
    expect(check.counts).toMatchObject({ indeterminate: 3, indeterminateCommitted: 1 });
  });

  it('refuses a history that completes an operation it never invoked, or twice', () => {
    expect(() => checkHistory([event('ok', 0, 1, { firstOffset: 1 })], [])).toThrow('never invoked');
    expect(() => checkHistory([...acknowledged, event('info', 0, 2)], [])).toThrow('twice');
  });
});

describe('parseHistory and readRecordTag', () => {
  it('reads JSON lines, tolerates a cut last line and refuses a bad one in the middle', () => {
    const text = `${JSON.stringify(acknowledged[0])}\n${JSON.stringify(acknowledged[2])}\n{"type":"in`;
    expect(parseHistory(text, 'h')).toEqual([acknowledged[0], acknowledged[2]]);
    expect(() => parseHistory(`nope\n${JSON.stringify(acknowledged[0])}\n`, 'h')).toThrow('h:1');
    expect(() => parseHistory('{"type":"later","count":1}\n', 'h')).toThrow('not a history event');
  });

  it('reads the big-endian (node, epoch, sequence) tag at the front of a record value', () => {
    const value = Buffer.alloc(20);
    value.writeInt32BE(3, 0);
    value.writeInt32BE(7, 4);
    value.writeBigInt64BE(123_456_789_012n, 8);
    expect(readRecordTag(value.subarray(0))).toEqual({ node: 3, epoch: 7, sequence: 123_456_789_012 });
    expect(readRecordTag(Buffer.alloc(15))).toBeUndefined();
    expect(readRecordTag(null)).toBeUndefined();
  });
});
