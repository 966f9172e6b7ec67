/**
 * Checks a run's operation history (the test server's `--history-file` lines of every node)
 * against the committed log, as Jepsen's set checkers do: every acknowledged record must be
 * committed once, at the offset it was acknowledged at; nothing refused or never written may be
 * committed; a leader's records stay in the order it wrote them.
 */

export type HistoryEventType = 'invoke' | 'ok' | 'fail' | 'info';

/** One history line, as `apps/test-server` writes it (its README, "Operation history"). */
export interface HistoryEvent {
  readonly type: HistoryEventType;
  readonly node: number;
  readonly epoch: number;
  readonly firstSequence: number;
  readonly count: number;
  readonly firstOffset?: number;
  readonly error?: string;
  readonly monotonicUs: number;
}

/** A record's (node, epoch, sequence) tag: the first 16 bytes of its value, big-endian. */
export interface RecordTag {
  readonly node: number;
  readonly epoch: number;
  readonly sequence: number;
}

export const RECORD_TAG_BYTES = 16;

/** The tag of a record value, or undefined when the value is too short to hold one. */
export function readRecordTag(value: Uint8Array | null): RecordTag | undefined {
  if (value === null || value.length < RECORD_TAG_BYTES) return undefined;
  const view = new DataView(value.buffer, value.byteOffset, RECORD_TAG_BYTES);
  return { node: view.getInt32(0), epoch: view.getInt32(4), sequence: Number(view.getBigInt64(8)) };
}

/** A data record of the committed log. */
export interface CommittedRecord {
  readonly offset: number;
  readonly tag: RecordTag | undefined;
}

export interface HistoryCounts {
  /** Operations in the history (invocations). */
  readonly operations: number;
  /** Records acknowledged (`ok`). */
  readonly acked: number;
  /** Records of refused operations (`fail`). */
  readonly failed: number;
  /** Records whose outcome was unknown (`info`, or an invocation never completed). */
  readonly indeterminate: number;
  /** Of those, the records found committed. */
  readonly indeterminateCommitted: number;
  readonly committed: number;
  /** Acknowledged records missing from the committed log. */
  readonly lost: number;
  /** Acknowledged records committed at another offset than the one acknowledged. */
  readonly misplaced: number;
  /** Records committed more than once. */
  readonly duplicated: number;
  /** Records committed before a lower sequence of the same leader epoch. */
  readonly reordered: number;
  /** Committed records never invoked, of a refused operation, or without a tag. */
  readonly unexpected: number;
}

export interface HistoryCheck {
  readonly counts: HistoryCounts;
  /** A few examples of each problem, for the report. */
  readonly problems: readonly string[];
  readonly valid: boolean;
}

/** Examples kept per problem kind: enough to start debugging, bounded for a long run. */
const EXAMPLES_PER_PROBLEM = 5;

type Outcome = 'pending' | 'ok' | 'fail' | 'info';

interface Operation {
  outcome: Outcome;
  readonly event: HistoryEvent;
  ackedFirstOffset: number | undefined;
}

function operationKey(node: number, epoch: number, firstSequence: number): string {
  return `${node}:${epoch}:${firstSequence}`;
}

function recordKey(tag: RecordTag): string {
  return `${tag.node}:${tag.epoch}:${tag.sequence}`;
}

function describeTag(tag: RecordTag): string {
  return `(node ${tag.node}, epoch ${tag.epoch}, sequence ${tag.sequence})`;
}

/** The operations of the history, each with its final outcome. */
function replayOperations(events: readonly HistoryEvent[]): Map<string, Operation> {
  const operations = new Map<string, Operation>();
  for (const event of events) {
    const key = operationKey(event.node, event.epoch, event.firstSequence);
    if (event.type === 'invoke') {
      if (operations.has(key)) throw new Error(`history invokes operation ${key} twice`);
      operations.set(key, { outcome: 'pending', event, ackedFirstOffset: undefined });
      continue;
    }
    const operation = operations.get(key);
    if (operation === undefined) throw new Error(`history completes operation ${key} that was never invoked`);
    if (operation.outcome !== 'pending') throw new Error(`history completes operation ${key} twice`);
    operation.outcome = event.type;
    if (event.type === 'ok') operation.ackedFirstOffset = event.firstOffset;
  }
  return operations;
}

/** Each record of each operation, by its tag, with the offset it was acknowledged at. */
function expectedRecords(
  operations: Map<string, Operation>,
): Map<string, { outcome: Outcome; ackedOffset?: number }> {
  const records = new Map<string, { outcome: Outcome; ackedOffset?: number }>();
  for (const operation of operations.values()) {
    const { node, epoch, firstSequence, count } = operation.event;
    for (let index = 0; index < count; index++) {
      const key = recordKey({ node, epoch, sequence: firstSequence + index });
      const acked = operation.outcome === 'ok' && operation.ackedFirstOffset !== undefined;
      records.set(
        key,
        acked
          ? { outcome: 'ok', ackedOffset: (operation.ackedFirstOffset as number) + index }
          : { outcome: operation.outcome },
      );
    }
  }
  return records;
}

class ProblemLog {
  private readonly counts = new Map<string, number>();
  readonly examples: string[] = [];

  add(kind: string, detail: string): void {
    const seen = this.counts.get(kind) ?? 0;
    this.counts.set(kind, seen + 1);
    if (seen < EXAMPLES_PER_PROBLEM) this.examples.push(`${kind}: ${detail}`);
  }

  count(kind: string): number {
    return this.counts.get(kind) ?? 0;
  }
}

/** Checks `committed` (the data records below the committed offset, in offset order) against `events`. */
export function checkHistory(
  events: readonly HistoryEvent[],
  committed: readonly CommittedRecord[],
): HistoryCheck {
  const operations = replayOperations(events);
  const expected = expectedRecords(operations);
  const problems = new ProblemLog();
  const seen = new Set<string>();
  const lastSequenceByEpoch = new Map<string, number>();
  let indeterminateCommitted = 0;
  for (const record of committed) {
    const tag = record.tag;
    if (tag === undefined) {
      problems.add('unexpected', `offset ${record.offset} holds a record without a tag`);
      continue;
    }
    const key = recordKey(tag);
    if (seen.has(key)) {
      problems.add('duplicated', `${describeTag(tag)} again at offset ${record.offset}`);
      continue;
    }
    seen.add(key);
    const writer = `${tag.node}:${tag.epoch}`;
    const previous = lastSequenceByEpoch.get(writer);
    if (previous !== undefined && tag.sequence < previous) {
      problems.add('reordered', `${describeTag(tag)} at offset ${record.offset} after sequence ${previous}`);
    } else {
      lastSequenceByEpoch.set(writer, tag.sequence);
    }
    const expectation = expected.get(key);
    if (expectation === undefined || expectation.outcome === 'fail') {
      const why = expectation === undefined ? 'never invoked' : 'of a refused (fail) operation';
      problems.add('unexpected', `${describeTag(tag)} at offset ${record.offset}, ${why}`);
    } else if (expectation.outcome === 'ok' && expectation.ackedOffset !== record.offset) {
      problems.add(
        'misplaced',
        `${describeTag(tag)} acknowledged at ${expectation.ackedOffset}, committed at ${record.offset}`,
      );
    } else if (expectation.outcome !== 'ok') {
      indeterminateCommitted += 1;
    }
  }
  let acked = 0;
  let failed = 0;
  let indeterminate = 0;
  for (const [key, expectation] of expected) {
    if (expectation.outcome === 'ok') {
      acked += 1;
      if (!seen.has(key))
        problems.add(
          'lost',
          `(node:epoch:sequence ${key}) acknowledged at offset ${expectation.ackedOffset}`,
        );
    } else if (expectation.outcome === 'fail') {
      failed += 1;
    } else {
      indeterminate += 1;
    }
  }
  const counts: HistoryCounts = {
    operations: operations.size,
    acked,
    failed,
    indeterminate,
    indeterminateCommitted,
    committed: committed.length,
    lost: problems.count('lost'),
    misplaced: problems.count('misplaced'),
    duplicated: problems.count('duplicated'),
    reordered: problems.count('reordered'),
    unexpected: problems.count('unexpected'),
  };
  const valid =
    counts.lost + counts.misplaced + counts.duplicated + counts.reordered + counts.unexpected === 0;
  return { counts, problems: problems.examples, valid };
}

/** Parses history lines (one JSON object each); a malformed line is an error naming it. */
export function parseHistory(text: string, source: string): HistoryEvent[] {
  const events: HistoryEvent[] = [];
  const lines = text.split('\n');
  for (const [index, line] of lines.entries()) {
    if (line === '') continue;
    let event: HistoryEvent;
    try {
      event = JSON.parse(line) as HistoryEvent;
    } catch {
      // A kill -9 can cut the last line short; any other bad line is a bug in the writer.
      if (index === lines.length - 1) break;
      throw new Error(`${source}:${index + 1}: not a JSON history line`);
    }
    if (!['invoke', 'ok', 'fail', 'info'].includes(event.type) || !Number.isSafeInteger(event.count)) {
      throw new Error(`${source}:${index + 1}: not a history event`);
    }
    events.push(event);
  }
  return events;
}
