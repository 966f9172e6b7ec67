import { describe, expect, it } from 'vitest';
import { lostFlushedDataPolicyFor, quorumStateStorePath } from './log-directory-layout.js';

describe('log directory layout', () => {
  it('keeps the quorum-state file in the partition directory', () => {
    expect(quorumStateStorePath('/data/kraft', '__cluster_metadata-0')).toBe(
      '/data/kraft/__cluster_metadata-0/quorum-state',
    );
    expect(quorumStateStorePath('/data/kraft/', 'topic-0')).toBe('/data/kraft/topic-0/quorum-state');
  });

  it('recovers lost flushed data from the quorum only when there are other voters', () => {
    expect(lostFlushedDataPolicyFor(2)).toBe('recover-from-quorum');
    expect(lostFlushedDataPolicyFor(1)).toBe('recover-from-quorum');
    expect(lostFlushedDataPolicyFor(0)).toBe('refuse');
  });

  it('accepts the loss only when the operator asks, with or without other voters', () => {
    expect(lostFlushedDataPolicyFor(0, true)).toBe('accept-loss');
    expect(lostFlushedDataPolicyFor(2, true)).toBe('accept-loss');
  });
});
