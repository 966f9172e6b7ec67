import type {
  QuorumStateData,
  QuorumStateDataVersion,
  QuorumStateStore,
} from '../../src/ports/quorum-state-store.js';

/** An in-memory QuorumStateStore that keeps every write, for assertions. */
export class MockQuorumStateStore implements QuorumStateStore {
  private current: QuorumStateData | undefined;
  readonly writes: { data: QuorumStateData; dataVersion: QuorumStateDataVersion }[] = [];

  constructor(initial?: QuorumStateData) {
    this.current = initial;
  }

  readElectionState(): QuorumStateData | undefined {
    return this.current;
  }

  /** Durable at once: the test kit reports the write in the same step. */
  writeElectionState(data: QuorumStateData, dataVersion: QuorumStateDataVersion): Promise<void> {
    this.current = data;
    this.writes.push({ data, dataVersion });
    return Promise.resolve();
  }

  clear(): void {
    this.current = undefined;
  }

  path(): string {
    return 'memory:quorum-state';
  }
}
