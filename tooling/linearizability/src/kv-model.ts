import { type Model, REJECTED, type Rejected } from './model.js';

/** An operation on one key of a key-value map; a value is a string, `null` is absent. */
export type KvInput =
  | { readonly type: 'get'; readonly key: string }
  | { readonly type: 'put'; readonly key: string; readonly value: string }
  | { readonly type: 'delete'; readonly key: string }
  /** Sets `value` (`null` deletes) if the current value is `expected` (`null`: absent). */
  | {
      readonly type: 'cas';
      readonly key: string;
      readonly expected: string | null;
      readonly value: string | null;
    };

/** What a completed operation returned: the value for `get`, whether it swapped for `cas`, `null` for the rest. */
export type KvOutput = { readonly value: string | null } | { readonly swapped: boolean } | null;

/** One key's value: the key-value model is checked one key at a time (see `partitionKey`). */
export type KvState = string | null;

// A hash for the absent value that no short string is likely to share.
const ABSENT_HASH = 0x5bd1e995;

/**
 * The sequential specification of a key-value map with put, delete, compare-and-set and get. A
 * map is one independent register per key, so histories are split by key and each key's state is
 * only that key's value (P-compositionality): the search never sees the whole map.
 */
export const kvModel: Model<KvState, KvInput, KvOutput> = {
  init: () => null,
  step: kvStep,
  equal: (a, b) => a === b,
  hash: (state) => (state === null ? ABSENT_HASH : stringHash(state)),
  partitionKey: (input) => input.key,
  isReadOnly: (input, output) =>
    input.type === 'get' ||
    (input.type === 'cas' &&
      output !== undefined &&
      output !== null &&
      'swapped' in output &&
      !output.swapped),
  describe: describeKvOperation,
};

function kvStep(state: KvState, input: KvInput, output: KvOutput | undefined): KvState | Rejected {
  switch (input.type) {
    case 'get':
      if (output === undefined) return state;
      return output !== null && 'value' in output && output.value === state ? state : REJECTED;
    case 'put':
      return input.value;
    case 'delete':
      return null;
    case 'cas': {
      const matches = state === input.expected;
      if (output === undefined) return matches ? input.value : state;
      if (output === null || !('swapped' in output)) return REJECTED;
      if (output.swapped !== matches) return REJECTED;
      return matches ? input.value : state;
    }
  }
}

function describeKvOperation(input: KvInput, output: KvOutput | undefined): string {
  const key = JSON.stringify(input.key);
  const result = output === undefined ? ' -> ?' : output === null ? '' : ` -> ${describeOutput(output)}`;
  switch (input.type) {
    case 'get':
      return `get(${key})${result}`;
    case 'put':
      return `put(${key}, ${JSON.stringify(input.value)})${result}`;
    case 'delete':
      return `delete(${key})${result}`;
    case 'cas':
      return `cas(${key}, ${JSON.stringify(input.expected)}, ${JSON.stringify(input.value)})${result}`;
  }
}

function describeOutput(output: Exclude<KvOutput, null>): string {
  return 'value' in output ? JSON.stringify(output.value) : String(output.swapped);
}

/** FNV-1a over the UTF-16 code units. */
function stringHash(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash = Math.imul(hash ^ text.charCodeAt(index), 0x01000193);
  }
  return hash | 0;
}

/** True when `value` is a well-formed `KvInput` (for histories read back from a file). */
export function isKvInput(value: unknown): value is KvInput {
  if (typeof value !== 'object' || value === null) return false;
  const input = value as Record<string, unknown>;
  if (typeof input['key'] !== 'string') return false;
  const isValue = (field: unknown) => typeof field === 'string' || field === null;
  switch (input['type']) {
    case 'get':
    case 'delete':
      return true;
    case 'put':
      return typeof input['value'] === 'string';
    case 'cas':
      return isValue(input['expected']) && isValue(input['value']);
    default:
      return false;
  }
}

/** True when `value` is a well-formed `KvOutput`. */
export function isKvOutput(value: unknown): value is KvOutput {
  if (value === null) return true;
  if (typeof value !== 'object') return false;
  const output = value as Record<string, unknown>;
  if ('value' in output) return typeof output['value'] === 'string' || output['value'] === null;
  return typeof output['swapped'] === 'boolean';
}
