import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Endpoints } from '../endpoints.js';
import { BatchAccumulator } from '../internals/batch-accumulator.js';
import { ReplicaKey } from '../replica-key.js';
import { VoterSet } from '../voter-set.js';
import { LeaderState } from './leader-state.js';

const EPOCH_START_OFFSET = 5;

const operation = fc.oneof(
  fc.record({ kind: fc.constant('local' as const), delta: fc.integer({ min: 0, max: 5 }) }),
  fc.record({
    kind: fc.constant('fetch' as const),
    replicaId: fc.integer({ min: 2, max: 7 }),
    offset: fc.integer({ min: 0, max: 60 }),
  }),
);

describe('LeaderState high watermark (property)', () => {
  it('is monotonic, above the epoch start, and reached by a majority of voters when set', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5 }),
        fc.array(operation, { maxLength: 80 }),
        (voterCount, operations) => {
          const voterIds = Array.from({ length: voterCount }, (_, index) => index + 1);
          const voters = VoterSet.fromIds(voterIds);
          const state = new LeaderState({
            epoch: 3,
            localKey: ReplicaKey.of(1),
            localEndpoints: Endpoints.EMPTY,
            epochStartOffset: EPOCH_START_OFFSET,
            voters,
            grantingVoters: voterIds,
            accumulator: new BatchAccumulator({ epoch: 3, baseOffset: EPOCH_START_OFFSET + 1, lingerMs: 0 }),
            fetchTimeoutMs: 1000,
            nowMs: 0,
          });
          let localFlushed = EPOCH_START_OFFSET;
          const reported = new Map<number, number>([[1, localFlushed]]);
          state.updateLocalState(localFlushed, 0);
          let previous: number | undefined;
          for (const step of operations) {
            if (step.kind === 'local') {
              localFlushed += step.delta;
              reported.set(1, localFlushed);
              state.updateLocalState(localFlushed, 0);
            } else {
              const offset = Math.min(step.offset, localFlushed);
              state.updateReplicaState(ReplicaKey.of(step.replicaId), 0, offset, localFlushed);
              if (voters.isVoterId(step.replicaId)) reported.set(step.replicaId, offset);
            }
            const highWatermark = state.highWatermark();
            if (highWatermark === undefined) {
              expect(previous).toBeUndefined();
              continue;
            }
            expect(highWatermark).toBeGreaterThan(EPOCH_START_OFFSET);
            if (previous !== undefined) expect(highWatermark).toBeGreaterThanOrEqual(previous);
            // When it moved, a majority of voters had reported at least it.
            if (highWatermark !== previous) {
              const atLeast = [...reported.values()].filter((offset) => offset >= highWatermark).length;
              expect(atLeast).toBeGreaterThanOrEqual(voters.majoritySize());
            }
            previous = highWatermark;
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
