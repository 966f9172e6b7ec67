import { describe, expect, it } from 'vitest';
import { IndeterminateError } from '../errors/indeterminate-error.js';
import { ProposalRejectedError } from '../errors/proposal-rejected-error.js';
import { ProposalTracker } from './proposal-tracker.js';

async function outcomeOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    (value) => value,
    (error: unknown) => error,
  );
}

describe('ProposalTracker', () => {
  it('commits a proposal when the committed batch holding its last offset has its epoch', async () => {
    const tracker = new ProposalTracker();
    const first = tracker.track(4, 2);
    const second = tracker.track(6, 2);
    // The accumulator merged both proposals into one batch [3, 7].
    tracker.onCommittedBatch(3, 7, 2);
    await expect(first.outcome).resolves.toEqual({ offset: 4, epoch: 2 });
    await expect(second.outcome).resolves.toEqual({ offset: 6, epoch: 2 });
    expect(tracker.size()).toBe(0);
  });

  it('leaves a proposal pending until a batch reaches its offset', () => {
    const tracker = new ProposalTracker();
    tracker.track(10, 3);
    tracker.onCommittedBatch(0, 9, 3);
    expect(tracker.size()).toBe(1);
  });

  it('makes a proposal indeterminate when the committed batches skipped over its offset', async () => {
    const tracker = new ProposalTracker();
    const skipped = tracker.track(5, 1);
    // A snapshot covered offsets up to 7; the next committed batch starts above the proposal, in its epoch.
    tracker.onCommittedBatch(8, 9, 1);
    const error = await outcomeOf(skipped.outcome);
    expect(error).toBeInstanceOf(IndeterminateError);
    expect(error).toMatchObject({ reason: 'snapshot' });
    expect(tracker.size()).toBe(0);
  });

  it('rejects a proposal when another epoch committed at its offset', async () => {
    const tracker = new ProposalTracker();
    const lost = tracker.track(5, 2);
    tracker.onCommittedBatch(4, 6, 3);
    const error = await outcomeOf(lost.outcome);
    expect(error).toBeInstanceOf(ProposalRejectedError);
    expect(error).toMatchObject({ offset: 5, epoch: 2, committedEpoch: 3 });
  });

  it('settles proposals in offset order even when one was tracked after a truncation', async () => {
    const tracker = new ProposalTracker();
    const old = tracker.track(9, 2);
    const fresh = tracker.track(7, 4);
    tracker.onCommittedBatch(7, 7, 4);
    await expect(fresh.outcome).resolves.toEqual({ offset: 7, epoch: 4 });
    expect(tracker.size()).toBe(1);
    tracker.onCommittedBatch(8, 9, 4);
    expect(await outcomeOf(old.outcome)).toBeInstanceOf(ProposalRejectedError);
  });

  it('makes proposals a loaded snapshot covers indeterminate, and keeps later ones', async () => {
    const tracker = new ProposalTracker();
    const covered = tracker.track(5, 1);
    tracker.track(20, 1);
    tracker.onSnapshotLoaded(10);
    const error = await outcomeOf(covered.outcome);
    expect(error).toBeInstanceOf(IndeterminateError);
    expect(error).toMatchObject({ reason: 'snapshot', offset: 5 });
    expect(tracker.size()).toBe(1);
  });

  it('expires one proposal and fails all on close as indeterminate', async () => {
    const tracker = new ProposalTracker();
    const timedOut = tracker.track(1, 1);
    const open = tracker.track(2, 1);
    expect(tracker.expire(timedOut)).toBe(true);
    expect(tracker.expire(timedOut)).toBe(false);
    expect(await outcomeOf(timedOut.outcome)).toMatchObject({ reason: 'timeout' });
    tracker.failAll('closed');
    expect(await outcomeOf(open.outcome)).toMatchObject({ reason: 'closed' });
    expect(tracker.size()).toBe(0);
  });
});
