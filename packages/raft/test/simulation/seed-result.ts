/** What one seed's run reports; plain data so it crosses process boundaries. */
export interface SeedResult {
  readonly seed: number;
  readonly scenario: string;
  readonly voters: number;
  readonly observers: number;
  readonly events: number;
  readonly simulatedMs: number;
  /** Values the cluster committed (seen in a listener) after the workload appended them. */
  readonly acked: number;
  /** Acked values missing from the final committed history. */
  readonly lost: number;
  /** Values committed at two offsets. */
  readonly duplicated: number;
  /** Appended but neither committed nor known to be gone at the end. */
  readonly indeterminate: number;
  readonly violations: readonly string[];
  /** Simulated power losses, each dropping, tearing or garbling the unsynced tail. */
  readonly crashes: number;
  readonly traceHash: string;
  /** The last trace lines, only when the seed failed (or a full trace was asked for). */
  readonly traceTail: readonly string[];
  readonly wallMs: number;
}

export interface SeedOptions {
  /** Force one scenario instead of the seed's choice. */
  readonly scenario?: string;
  /** Each seed runs one of the voter change scenarios (kraft.version 1), drawn from the seed. */
  readonly voterChanges?: boolean;
  /** Keep the trace tail even when the seed passes. */
  readonly keepTrace?: boolean;
  /** How many trace lines to keep for printing (default 4,000). */
  readonly traceLines?: number;
  /** Encode and decode every message through @kraft/protocol (default true). */
  readonly roundTripMessages?: boolean;
  /** A bug planted in the log under test, to prove the invariants catch it (node-factory.ts). */
  readonly sabotage?: string;
  /** Invariants to switch off (names of InvariantSelection), e.g. to see which others catch a sabotage. */
  readonly disabledInvariants?: readonly string[];
  /** Run every node at this kraft.version (default: the client's, 0); drawn from no randomness. */
  readonly kraftVersion?: 0 | 1;
}

export function seedFailed(result: SeedResult): boolean {
  return result.violations.length > 0 || result.lost > 0 || result.duplicated > 0;
}

/** Jepsen-style totals over many seeds. */
export class SeedTotals {
  seeds = 0;
  events = 0;
  simulatedMs = 0;
  acked = 0;
  lost = 0;
  duplicated = 0;
  indeterminate = 0;
  violations = 0;
  crashes = 0;
  wallMs = 0;
  readonly failedSeeds: number[] = [];

  add(result: SeedResult): void {
    this.seeds += 1;
    this.events += result.events;
    this.simulatedMs += result.simulatedMs;
    this.acked += result.acked;
    this.lost += result.lost;
    this.duplicated += result.duplicated;
    this.indeterminate += result.indeterminate;
    this.violations += result.violations.length;
    this.crashes += result.crashes;
    this.wallMs += result.wallMs;
    if (seedFailed(result)) this.failedSeeds.push(result.seed);
  }

  merge(other: SeedTotals): void {
    this.seeds += other.seeds;
    this.events += other.events;
    this.simulatedMs += other.simulatedMs;
    this.acked += other.acked;
    this.lost += other.lost;
    this.duplicated += other.duplicated;
    this.indeterminate += other.indeterminate;
    this.violations += other.violations;
    this.crashes += other.crashes;
    this.wallMs += other.wallMs;
    this.failedSeeds.push(...other.failedSeeds);
  }

  /** One line of counts; `elapsedMs` is wall time for the events/s figure. */
  summary(elapsedMs: number): string {
    const eventsPerSecond = elapsedMs > 0 ? Math.round((this.events * 1000) / elapsedMs) : 0;
    return [
      `seeds: ${this.seeds}`,
      `events: ${this.events}`,
      `acked: ${this.acked}`,
      `lost: ${this.lost}`,
      `duplicated: ${this.duplicated}`,
      `indeterminate: ${this.indeterminate}`,
      `invariant violations: ${this.violations}`,
      `crashes: ${this.crashes}`,
      `simulated: ${(this.simulatedMs / 1000).toFixed(0)} s`,
      `events/s: ${eventsPerSecond}`,
    ].join('  ');
  }
}
