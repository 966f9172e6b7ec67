import type { SimulationRandom } from './simulation-random.js';

/** Which way a message travels and what it is; enough for every filter decision. */
export interface RoutedMessage {
  readonly kind: 'request' | 'response';
  readonly sourceId: number;
  readonly destinationId: number;
  readonly apiKey: number;
}

/** What the network does to one message: lose it, or deliver `copies` copies after their delays. */
export type RoutingDecision =
  | { readonly dropped: true }
  | { readonly dropped: false; readonly delaysMs: number[] };

/**
 * Link behaviour applied to every message that the partition table lets through: random loss,
 * duplication, and delay (independent per copy, which also reorders messages).
 */
export interface LinkConditions {
  /** The chance that a message is lost. */
  dropProbability: number;
  /** The chance that a message is delivered twice (each copy with its own delay). */
  duplicateProbability: number;
  /** The shortest delivery delay. */
  minDelayMs: number;
  /** The longest usual delivery delay; copies drawn apart arrive out of order. */
  maxDelayMs: number;
  /** A rare long delay: a stale message arriving long after newer ones. */
  slowProbability: number;
  /** What a slow message waits on top of its usual delay. */
  slowDelayMs: number;
}

export const HEALTHY_LINKS: Readonly<LinkConditions> = Object.freeze({
  dropProbability: 0,
  duplicateProbability: 0,
  minDelayMs: 1,
  maxDelayMs: 3,
  slowProbability: 0,
  slowDelayMs: 0,
});

/**
 * The partition table: directed links that drop everything, as Kafka's `DropAllTraffic` and
 * `DropOutboundRequestsTo` filters do. Symmetric cuts block both directions.
 */
export class PartitionTable {
  private readonly blocked = new Set<number>();

  private static key(from: number, to: number): number {
    // Node ids in a simulation are small non-negative integers.
    return from * 1024 + to;
  }

  blockOneWay(from: number, to: number): void {
    this.blocked.add(PartitionTable.key(from, to));
  }

  block(left: number, right: number): void {
    this.blockOneWay(left, right);
    this.blockOneWay(right, left);
  }

  /** Cuts `nodeId` off from every other node, in both directions. */
  isolate(nodeId: number, allNodeIds: readonly number[]): void {
    for (const other of allNodeIds) if (other !== nodeId) this.block(nodeId, other);
  }

  /** Cuts every link between nodes of different groups. */
  partition(groups: readonly (readonly number[])[]): void {
    for (const [index, group] of groups.entries()) {
      for (const other of groups.slice(index + 1)) {
        for (const left of group) for (const right of other) this.block(left, right);
      }
    }
  }

  heal(): void {
    this.blocked.clear();
  }

  isBlocked(from: number, to: number): boolean {
    return this.blocked.has(PartitionTable.key(from, to));
  }

  isHealed(): boolean {
    return this.blocked.size === 0;
  }

  /** Whether `from` reaches `to` and back. */
  connected(from: number, to: number): boolean {
    return !this.isBlocked(from, to) && !this.isBlocked(to, from);
  }

  describe(): string {
    return [...this.blocked]
      .sort((left, right) => left - right)
      .map((key) => `${Math.floor(key / 1024)}>${key % 1024}`)
      .join(',');
  }
}

/** Decides a message's fate: the partition table first, then the link conditions. */
export function route(
  message: RoutedMessage,
  partitions: PartitionTable,
  conditions: LinkConditions,
  random: SimulationRandom,
): RoutingDecision {
  if (partitions.isBlocked(message.sourceId, message.destinationId)) return { dropped: true };
  if (conditions.dropProbability > 0 && random.chance(conditions.dropProbability)) return { dropped: true };
  const copies =
    conditions.duplicateProbability > 0 && random.chance(conditions.duplicateProbability) ? 2 : 1;
  const delaysMs: number[] = [];
  for (let copy = 0; copy < copies; copy += 1) {
    const slow = conditions.slowProbability > 0 && random.chance(conditions.slowProbability);
    delaysMs.push(
      random.between(conditions.minDelayMs, conditions.maxDelayMs) + (slow ? conditions.slowDelayMs : 0),
    );
  }
  return { dropped: false, delaysMs };
}
