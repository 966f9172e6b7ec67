import type { KvInput, KvOutput, Operation } from '../src/index.js';

export type KvOperation = Operation<KvInput, KvOutput>;

// Shorthands for hand-written histories: each takes the client, the call and return times (return
// `undefined` for an unknown outcome), then what the operation did.
export const put = (
  clientId: number,
  call: number,
  returnTime: number | undefined,
  key: string,
  value: string,
): KvOperation => operation(clientId, call, returnTime, { type: 'put', key, value }, null);

export const remove = (
  clientId: number,
  call: number,
  returnTime: number | undefined,
  key: string,
): KvOperation => operation(clientId, call, returnTime, { type: 'delete', key }, null);

export const get = (
  clientId: number,
  call: number,
  returnTime: number | undefined,
  key: string,
  value: string | null,
): KvOperation => operation(clientId, call, returnTime, { type: 'get', key }, { value });

export const cas = (
  clientId: number,
  call: number,
  returnTime: number | undefined,
  key: string,
  expected: string | null,
  value: string | null,
  swapped: boolean,
): KvOperation => operation(clientId, call, returnTime, { type: 'cas', key, expected, value }, { swapped });

function operation(
  clientId: number,
  call: number,
  returnTime: number | undefined,
  input: KvInput,
  output: KvOutput,
): KvOperation {
  return returnTime === undefined
    ? { clientId, input, call, return: undefined, output: undefined }
    : { clientId, input, call, return: returnTime, output };
}
