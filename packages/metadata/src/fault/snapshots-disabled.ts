/**
 * Why this node no longer writes snapshots, shared by the loading fault handler and the snapshot
 * generator (Kafka's `snapshotsDisabledReason`). Once set it stays set until the process restarts:
 * an image built after a loading fault may be wrong, and a snapshot would make it permanent.
 */
export class SnapshotsDisabled {
  private reason: string | undefined;

  /** Disables snapshots until restart; the first reason given is kept. */
  disable(reason: string): void {
    this.reason ??= reason;
  }

  /** Why snapshots are disabled; undefined while they are enabled. */
  disabledReason(): string | undefined {
    return this.reason;
  }
}
