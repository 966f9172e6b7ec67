// pnpm --filter @kraft/linearizability check-history <history.jsonl> [--time-budget-ms N]
// Checks a saved key-value history; exits 0 when linearizable, 1 when not, 2 when unknown.
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { checkHistoryFile, formatCheckResult, isKvInput, isKvOutput, kvModel } from '../src/index.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { 'time-budget-ms': { type: 'string' }, 'max-states': { type: 'string' } },
});
if (positionals.length !== 1) {
  console.error('usage: check-history <history.jsonl> [--time-budget-ms N] [--max-states N]');
  process.exit(2);
}
// pnpm runs the script in the package folder; a relative path means the caller's folder.
const path = resolve(process.env['INIT_CWD'] ?? process.cwd(), positionals[0]!);
const result = await checkHistoryFile(kvModel, path, {
  isInput: isKvInput,
  isOutput: isKvOutput,
  ...(values['time-budget-ms'] === undefined ? {} : { timeBudgetMs: Number(values['time-budget-ms']) }),
  ...(values['max-states'] === undefined ? {} : { maxStates: Number(values['max-states']) }),
});
console.log(formatCheckResult(kvModel, result));
process.exit(result.ok ? 0 : result.outcome === 'not-linearizable' ? 1 : 2);
