import { SeededRandom } from '@kraft/raft';

/**
 * What the kernel (or the runner, for processes) does to the cluster:
 * - `partition-link`: the link between two nodes goes down, both ways, silently (no RST, no FIN);
 * - `isolate-node`: every link of one node goes down (the node is cut off from all peers);
 * - `blackhole`: a blackhole route from the first node to the second (a one-way cut);
 * - `slow-link`: a tbf qdisc caps both directions of a link to `rateKbit` with `latencyMs` of queue;
 * - `kill`: kill -9 of a node, restarted when the fault ends;
 * - `pause`: SIGSTOP (a long GC pause), SIGCONT when the fault ends;
 * - `disk-full`: the node's log dir (a small tmpfs) is filled, freed when the fault ends;
 * - `clock-jump`: the node restarts under faketime with its clock `clockJumpSeconds` off.
 */
export const FAULT_KINDS = [
  'partition-link',
  'isolate-node',
  'blackhole',
  'slow-link',
  'kill',
  'pause',
  'disk-full',
  'clock-jump',
] as const;

export type FaultKind = (typeof FAULT_KINDS)[number];

export interface Fault {
  /** Position in the schedule, from 0. */
  readonly index: number;
  readonly kind: FaultKind;
  /** Since the workload started. */
  readonly startMs: number;
  readonly durationMs: number;
  /** One node, or two for link faults (for `blackhole`: from, to). */
  readonly nodeIds: readonly number[];
  readonly rateKbit?: number;
  readonly latencyMs?: number;
  readonly clockJumpSeconds?: number;
}

export interface ScheduleOptions {
  readonly seed: number;
  readonly nodeIds: readonly number[];
  /** Faults start within `[0, faultWindowMs)`; each ends (heals) before the window closes. */
  readonly faultWindowMs: number;
  /** The kinds this machine can inject; the others are never drawn. */
  readonly kinds: readonly FaultKind[];
}

/** A fault lasts 2-8 s: longer than Kafka's 2 s fetch timeout, so each one can move the leader. */
const MINIMUM_FAULT_MS = 2_000;
const FAULT_SPREAD_MS = 6_000;
/** A SIGSTOP shorter than a heavy GC pause tells nothing; longer than the fetch timeout matters most. */
const MINIMUM_PAUSE_MS = 1_000;
/** Quiet time after a fault heals before the next: 1-4 s, so elections settle some of the time and not always. */
const MINIMUM_GAP_MS = 1_000;
const GAP_SPREAD_MS = 3_000;
/** tbf caps: 64 kbit/s to 1 Mbit/s and 20-300 ms of queueing, slow enough to outlast request timeouts. */
const RATES_KBIT = [64, 128, 256, 512, 1024] as const;
const MINIMUM_LATENCY_MS = 20;
const LATENCY_SPREAD_MS = 280;
/** Clock jumps of up to ±10 minutes: far beyond any timeout, as a bad NTP step. */
const MAXIMUM_CLOCK_JUMP_SECONDS = 600;
/** Bounds the schedule whatever the window (a 60 s window holds about 10). */
export const MAXIMUM_FAULTS = 1_000;

/**
 * The run's faults, one at a time, in start order: the same seed, nodes, window and kinds give
 * the same schedule, so a printed seed replays a run.
 */
export function createSchedule(options: ScheduleOptions): Fault[] {
  if (options.kinds.length === 0 || options.nodeIds.length < 2) return [];
  const random = new SeededRandom(options.seed);
  const faults: Fault[] = [];
  let startMs = MINIMUM_GAP_MS + random.nextInt(GAP_SPREAD_MS);
  while (faults.length < MAXIMUM_FAULTS) {
    const kind = pick(random, options.kinds);
    const minimumMs = kind === 'pause' ? MINIMUM_PAUSE_MS : MINIMUM_FAULT_MS;
    const durationMs = minimumMs + random.nextInt(FAULT_SPREAD_MS);
    if (startMs + durationMs > options.faultWindowMs) break;
    faults.push({
      index: faults.length,
      kind,
      startMs,
      durationMs,
      ...drawTargets(random, kind, options.nodeIds),
    });
    startMs += durationMs + MINIMUM_GAP_MS + random.nextInt(GAP_SPREAD_MS);
  }
  return faults;
}

function drawTargets(
  random: SeededRandom,
  kind: FaultKind,
  nodeIds: readonly number[],
): Omit<Fault, 'index' | 'kind' | 'startMs' | 'durationMs'> {
  const first = pick(random, nodeIds);
  const others = nodeIds.filter((nodeId) => nodeId !== first);
  switch (kind) {
    case 'partition-link':
    case 'blackhole':
      return { nodeIds: [first, pick(random, others)] };
    case 'slow-link':
      return {
        nodeIds: [first, pick(random, others)],
        rateKbit: pick(random, RATES_KBIT),
        latencyMs: MINIMUM_LATENCY_MS + random.nextInt(LATENCY_SPREAD_MS),
      };
    case 'clock-jump': {
      const seconds = 1 + random.nextInt(MAXIMUM_CLOCK_JUMP_SECONDS);
      return { nodeIds: [first], clockJumpSeconds: random.nextInt(2) === 0 ? -seconds : seconds };
    }
    default:
      return { nodeIds: [first] };
  }
}

function pick<T>(random: SeededRandom, values: readonly T[]): T {
  return values[random.nextInt(values.length)] as T;
}

/** `#3 blackhole 2->1 at 12.4s for 3.1s` for the run's report. */
export function describeFault(fault: Fault): string {
  const [first, second] = fault.nodeIds;
  const target =
    fault.kind === 'blackhole'
      ? `${first}->${second}`
      : fault.nodeIds.length === 2
        ? `${first}<->${second}`
        : `${first}`;
  const extra =
    fault.kind === 'slow-link'
      ? ` ${fault.rateKbit}kbit ${fault.latencyMs}ms`
      : fault.kind === 'clock-jump'
        ? ` ${fault.clockJumpSeconds}s`
        : '';
  return `#${fault.index} ${fault.kind} ${target}${extra} at ${(fault.startMs / 1000).toFixed(1)}s for ${(fault.durationMs / 1000).toFixed(1)}s`;
}
