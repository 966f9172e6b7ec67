/**
 * Why this node no longer writes snapshots, shared by the loading fault handler and the snapshot
 * generator (Kafka's `snapshotsDisabledReason`). Once set it stays set until the process restarts:
 * an image built after a loading fault may be wrong, and a snapshot would make it permanent.
 */
export class SnapshotsDisabled {
  private reason: string | undefined;

  disable(reason: string): void {
    this.reason ??= reason;
  }

  disabledReason(): string | undefined {
    return this.reason;
  }
}
