// A recording HTTP client of the store for the tests: each call is one operation of the history,
// completed as ok, fail (certainly not applied) or info (unknown) from what the store answered.
import type { HistoryRecorder, KvInput, KvOutput } from '@kraft/linearizability';

export type KvRecorder = HistoryRecorder<KvInput, KvOutput>;

/** What a call learned about where the leader is, for the caller's next write. */
export type Outcome =
  | { readonly kind: 'ok' | 'info' }
  | { readonly kind: 'fail'; readonly redirectTo?: string; readonly unreachable?: boolean };

interface HttpAnswer {
  readonly status: number;
  readonly text: string;
  readonly location: string | null;
}

/** Longer than the store's propose timeout, so a 504 normally comes before the client gives up. */
export const REQUEST_TIMEOUT_MS = 8_000;

async function send(url: string, method: string, body?: string): Promise<HttpAnswer> {
  const response = await fetch(url, {
    method,
    ...(body === undefined ? {} : { body }),
    redirect: 'manual',
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  return { status: response.status, text: await response.text(), location: response.headers.get('location') };
}

function requestFor(baseUrl: string, input: KvInput): { url: string; method: string; body?: string } {
  const path = `${baseUrl}/kv/${encodeURIComponent(input.key)}`;
  switch (input.type) {
    case 'get':
      return { url: `${path}?linearizable`, method: 'GET' };
    case 'put':
      return { url: path, method: 'PUT', body: input.value };
    case 'delete':
      return { url: path, method: 'DELETE' };
    case 'cas':
      return {
        url: `${path}/cas`,
        method: 'POST',
        body: JSON.stringify({ expected: input.expected, new: input.value }),
      };
  }
}

/** Nothing reached the server: the operation cannot have taken effect. */
function isConnectionRefused(error: unknown): boolean {
  const cause = (error as { cause?: { code?: string } }).cause;
  return cause?.code === 'ECONNREFUSED';
}

/** Sends `input` to the node at `baseUrl`, recording it under `clientId`. */
export async function recordedCall(
  recorder: KvRecorder,
  clientId: number,
  baseUrl: string,
  input: KvInput,
): Promise<Outcome> {
  const handle = recorder.invoke(clientId, input);
  const request = requestFor(baseUrl, input);
  let answer: HttpAnswer;
  try {
    answer = await send(request.url, request.method, request.body);
  } catch (error) {
    // A reset or timeout may come after the write reached the log: unknown. A read changes nothing.
    if (input.type === 'get' || isConnectionRefused(error)) {
      handle.fail();
      return { kind: 'fail', unreachable: true };
    }
    handle.info();
    return { kind: 'info' };
  }
  const { status, text, location } = answer;
  if (status === 200 || status === 204 || (status === 404 && input.type === 'get')) {
    handle.ok(outputOf(input, status, text));
    return { kind: 'ok' };
  }
  // 307 (not the leader) and 503 (no leader, refused before appending) are definite refusals.
  if (status === 307 || status === 503 || input.type === 'get') {
    handle.fail();
    return location === null ? { kind: 'fail' } : { kind: 'fail', redirectTo: new URL(location).origin };
  }
  handle.info();
  return { kind: 'info' };
}

function outputOf(input: KvInput, status: number, text: string): KvOutput {
  if (input.type === 'get') return { value: status === 404 ? null : text };
  if (input.type === 'cas') return { swapped: (JSON.parse(text) as { swapped: boolean }).swapped };
  return null;
}
