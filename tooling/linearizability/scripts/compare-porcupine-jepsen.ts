// pnpm --filter @kraft/linearizability compare-porcupine-jepsen <porcupine checkout>
// Checks the etcd Jepsen histories of Porcupine's test data (test_data/jepsen/etcd_NNN.log: one
// compare-and-set register, timed-out operations of unknown outcome) and compares each verdict
// with the one Porcupine's tests expect (porcupine_test.go: checkJepsen(t, N, linearizable)).
// The data stays in that checkout; this only reads it.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  checkOperations,
  type HistoryEvent,
  type KvInput,
  type KvOutput,
  kvModel,
  operationsFromEvents,
} from '../src/index.js';

type KvEvent = HistoryEvent<KvInput, KvOutput>;
const LINE = /jepsen\.util\s+-\s+(\d+)\s+:(invoke|ok|fail|info)\s+:(read|write|cas)\s+(.*)$/;
const EXPECTATION = /checkJepsen\(t, (\d+), (true|false)\)/g;

function invocation(operation: string, argument: string): KvInput {
  if (operation === 'read') return { type: 'get', key: 'register' };
  if (operation === 'write') return { type: 'put', key: 'register', value: argument };
  const [expected, value] = argument.replace(/[[\]]/g, '').trim().split(/\s+/);
  return { type: 'cas', key: 'register', expected: expected!, value: value! };
}

/** One event per Jepsen line, the line number as the time; a timed-out read is an unknown one. */
function parseJepsenLog(text: string): KvEvent[] {
  const events: KvEvent[] = [];
  const pendingByProcess = new Map<number, number>();
  text.split('\n').forEach((line, time) => {
    const match = LINE.exec(line);
    if (match === null) return;
    const [, processText, type, operation, rawArgument] = match;
    const clientId = Number(processText);
    const argument = rawArgument!.trim();
    if (type === 'invoke') {
      const id = events.length;
      pendingByProcess.set(clientId, id);
      events.push({ type: 'invoke', id, clientId, time, input: invocation(operation!, argument) });
      return;
    }
    const id = pendingByProcess.get(clientId)!;
    pendingByProcess.delete(clientId);
    if (type === 'info' || (type === 'fail' && operation === 'read')) {
      events.push({ type: 'info', id, clientId, time });
      return;
    }
    const output: KvOutput =
      operation === 'read'
        ? { value: argument === 'nil' ? null : argument }
        : operation === 'cas'
          ? { swapped: type === 'ok' }
          : null;
    events.push({ type: 'ok', id, clientId, time, output });
  });
  return events;
}

const checkout = resolve(process.env['INIT_CWD'] ?? process.cwd(), process.argv[2] ?? '.');
const expectations = [...readFileSync(join(checkout, 'porcupine_test.go'), 'utf8').matchAll(EXPECTATION)];
let disagreements = 0;
let slowestMs = 0;
const start = performance.now();
for (const [, number, linearizable] of expectations) {
  const path = join(checkout, 'test_data', 'jepsen', `etcd_${number!.padStart(3, '0')}.log`);
  const historyStart = performance.now();
  const result = checkOperations(kvModel, operationsFromEvents(parseJepsenLog(readFileSync(path, 'utf8'))));
  slowestMs = Math.max(slowestMs, performance.now() - historyStart);
  if (result.outcome === (linearizable === 'true' ? 'linearizable' : 'not-linearizable')) continue;
  disagreements++;
  console.log(
    `etcd_${number}: Porcupine expects linearizable=${linearizable}, the checker says ${result.outcome}`,
  );
}
const totalMs = performance.now() - start;
console.log(
  `${expectations.length} histories, ${disagreements} disagreements, ${totalMs.toFixed(0)} ms in all, slowest ${slowestMs.toFixed(0)} ms`,
);
process.exit(disagreements === 0 && expectations.length > 0 ? 0 : 1);
