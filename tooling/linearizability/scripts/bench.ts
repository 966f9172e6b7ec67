// pnpm --filter @kraft/linearizability bench: times checkOperations on histories of concurrent
// clients of a key-value map, recorded from a simulated real execution (each operation takes
// effect at a random point of its interval), with and without unknown-outcome operations, and
// with one read corrupted so that the check must find the violation.
import { checkOperations, type KvInput, type KvOutput, kvModel, type Operation } from '../src/index.js';

type KvOperation = Operation<KvInput, KvOutput>;

interface Scenario {
  readonly name: string;
  readonly operations: number;
  readonly keys: number;
  readonly clients: number;
  readonly unknownFraction: number;
  readonly corruptOneRead: boolean;
}

const SCENARIOS: Scenario[] = [
  {
    name: '10k ops, 16 keys, 8 clients',
    operations: 10_000,
    keys: 16,
    clients: 8,
    unknownFraction: 0,
    corruptOneRead: false,
  },
  {
    name: '  + 1% unknown outcomes',
    operations: 10_000,
    keys: 16,
    clients: 8,
    unknownFraction: 0.01,
    corruptOneRead: false,
  },
  {
    name: '  + one stale read (violation)',
    operations: 10_000,
    keys: 16,
    clients: 8,
    unknownFraction: 0.01,
    corruptOneRead: true,
  },
  {
    name: '10k ops, 1 key, 8 clients',
    operations: 10_000,
    keys: 1,
    clients: 8,
    unknownFraction: 0,
    corruptOneRead: false,
  },
  {
    name: '  + 1% unknown outcomes',
    operations: 10_000,
    keys: 1,
    clients: 8,
    unknownFraction: 0.01,
    corruptOneRead: false,
  },
  {
    name: '100k ops, 16 keys, 32 clients',
    operations: 100_000,
    keys: 16,
    clients: 32,
    unknownFraction: 0.01,
    corruptOneRead: false,
  },
];
const RUNS = 5;

function mulberry32(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let mixed = Math.imul(state ^ (state >>> 15), state | 1);
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61);
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
}

function generate(scenario: Scenario, seed: number): KvOperation[] {
  const random = mulberry32(seed);
  const pick = (count: number) => Math.floor(random() * count);
  // Each client runs one operation at a time; an operation lasts 1 to 100 time units and takes
  // effect at a random point inside them, or (unknown outcome) perhaps never.
  const planned: Array<{
    clientId: number;
    input: KvInput;
    call: number;
    point: number;
    end: number;
    unknown: boolean;
  }> = [];
  const clientTime = new Array<number>(scenario.clients).fill(0);
  for (let index = 0; index < scenario.operations; index++) {
    const clientId = index % scenario.clients;
    const key = `key-${pick(scenario.keys)}`;
    const value = `value-${index}`;
    const kind = pick(4);
    const input: KvInput =
      kind === 0
        ? { type: 'put', key, value }
        : kind === 1
          ? { type: 'get', key }
          : kind === 2
            ? { type: 'cas', key, expected: `value-${Math.max(0, index - 1 - pick(16))}`, value }
            : pick(4) === 0
              ? { type: 'delete', key }
              : { type: 'get', key };
    const call = clientTime[clientId]! + pick(10);
    const end = call + 1 + pick(100);
    const unknown = random() < scenario.unknownFraction;
    planned.push({ clientId, input, call, point: call + random() * (end - call), end, unknown });
    clientTime[clientId] = end + 1;
  }
  const outputs = new Map<number, KvOutput>();
  const map = new Map<string, string>();
  const byPoint = planned.map((_, index) => index).sort((a, b) => planned[a]!.point - planned[b]!.point);
  for (const index of byPoint) {
    const operation = planned[index]!;
    // Half the unknown-outcome operations never take effect.
    if (operation.unknown && random() < 0.5) continue;
    outputs.set(index, execute(map, operation.input));
  }
  const operations = planned.map(
    ({ clientId, input, call, end, unknown }, index): KvOperation =>
      unknown
        ? { clientId, input, call, return: undefined, output: undefined }
        : { clientId, input, call, return: end, output: outputs.get(index)! },
  );
  if (scenario.corruptOneRead) corruptLastRead(operations);
  return operations;
}

function execute(map: Map<string, string>, input: KvInput): KvOutput {
  const current = map.get(input.key) ?? null;
  if (input.type === 'get') return { value: current };
  if (input.type === 'put') map.set(input.key, input.value);
  if (input.type === 'delete') map.delete(input.key);
  if (input.type !== 'cas') return null;
  if (current !== input.expected) return { swapped: false };
  if (input.value === null) map.delete(input.key);
  else map.set(input.key, input.value);
  return { swapped: true };
}

/** Makes the last completed read return the key's first value: stale unless nothing overwrote it. */
function corruptLastRead(operations: KvOperation[]): void {
  for (let index = operations.length - 1; index >= 0; index--) {
    const operation = operations[index]!;
    if (operation.input.type !== 'get' || operation.return === undefined) continue;
    operations[index] = { ...operation, output: { value: 'a value never written' } };
    return;
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

// CPU time beside wall time: on a shared machine the wall clock also counts other processes' turns.
console.log(`| history | outcome | states explored | median ms (${RUNS} runs) | best ms | best CPU ms |`);
console.log('|---|---|---:|---:|---:|---:|');
for (const scenario of SCENARIOS) {
  const operations = generate(scenario, 42);
  const times: number[] = [];
  const cpuTimes: number[] = [];
  let outcome = '';
  let states = '';
  for (let run = 0; run < RUNS; run++) {
    const start = performance.now();
    const cpuStart = process.cpuUsage();
    const result = checkOperations(kvModel, operations);
    const cpu = process.cpuUsage(cpuStart);
    times.push(performance.now() - start);
    cpuTimes.push((cpu.user + cpu.system) / 1000);
    outcome = result.outcome;
    states = result.outcome === 'unknown' ? '' : String(result.exploredStates);
  }
  const expected = scenario.corruptOneRead ? 'not-linearizable' : 'linearizable';
  if (outcome !== expected) throw new Error(`${scenario.name}: expected ${expected}, got ${outcome}`);
  console.log(
    `| ${scenario.name} | ${outcome} | ${states} | ${median(times).toFixed(1)} | ${Math.min(...times).toFixed(1)} | ${Math.min(...cpuTimes).toFixed(1)} |`,
  );
}
