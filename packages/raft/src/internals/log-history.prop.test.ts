import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LogHistory } from './log-history.js';

/** The dumb alternative: every (offset, value) kept in a plain array, searched in full. */
class ModelHistory {
  entries: { offset: number; value: number }[] = [];

  valueAtOrBefore(offset: number): number | undefined {
    let found: number | undefined;
    for (const entry of this.entries) if (entry.offset <= offset) found = entry.value;
    return found;
  }

  truncateNewEntries(endOffset: number): void {
    this.entries = this.entries.filter((entry) => entry.offset < endOffset);
  }

  truncateOldEntries(startOffset: number): void {
    const below = this.entries.filter((entry) => entry.offset <= startOffset);
    const newestBelow = below[below.length - 1];
    this.entries = this.entries.filter((entry) => entry.offset > startOffset || entry === newestBelow);
  }
}

const operation = fc.oneof(
  fc.record({ kind: fc.constant('add' as const), gap: fc.integer({ min: 1, max: 5 }) }),
  fc.record({ kind: fc.constant('truncateNew' as const), offset: fc.integer({ min: -1, max: 60 }) }),
  fc.record({ kind: fc.constant('truncateOld' as const), offset: fc.integer({ min: -1, max: 60 }) }),
);

describe('LogHistory (property)', () => {
  it('answers as a plain list of every entry would, whatever the adds and truncations', () => {
    fc.assert(
      fc.property(fc.array(operation, { maxLength: 60 }), (operations) => {
        const history = new LogHistory<number>();
        const model = new ModelHistory();
        // Offsets only grow: the log is read forward, and a truncation is read again from the cut.
        let nextOffset = -1;
        for (const [index, step] of operations.entries()) {
          if (step.kind === 'add') {
            const last = model.entries[model.entries.length - 1];
            const offset = Math.max(nextOffset, (last?.offset ?? -2) + 1) + step.gap - 1;
            history.addAt(offset, index);
            model.entries.push({ offset, value: index });
            nextOffset = offset + 1;
          } else if (step.kind === 'truncateNew') {
            history.truncateNewEntries(step.offset);
            model.truncateNewEntries(step.offset);
          } else {
            history.truncateOldEntries(step.offset);
            model.truncateOldEntries(step.offset);
          }
          expect(history.size()).toBe(model.entries.length);
          expect(history.lastEntry()).toEqual(model.entries[model.entries.length - 1]);
          for (let offset = -2; offset <= nextOffset + 1; offset += 1) {
            expect(history.valueAtOrBefore(offset)).toBe(model.valueAtOrBefore(offset));
          }
        }
      }),
    );
  });
});
