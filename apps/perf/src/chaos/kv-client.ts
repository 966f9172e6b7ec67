import { request } from 'node:http';
import type { KvInput, KvOutput } from '@kraft/linearizability';
import { ownOrigin } from './destinations.js';

/**
 * One operation of the kv workload against the store's HTTP API (`examples/kv-store`, README "The
 * API"), and what its answer proves: `ok` (it took effect, with this output), `fail` (it certainly
 * did not) or `info` (unknown). An operation is retried on another node only after a definite
 * refusal, never after an unknown outcome: a retried write that might already have taken effect
 * could take effect twice.
 */

/** What one HTTP attempt came to. */
export type AttemptResult =
  | {
      readonly kind: 'answer';
      readonly status: number;
      readonly text: string;
      readonly location: string | undefined;
    }
  /** The TCP connection was never established (refused, unreachable, timed out while connecting): the store saw nothing. */
  | { readonly kind: 'not-sent'; readonly reason: string }
  /** Connected, then a timeout, a reset or a close before the whole answer: the request may have been applied. */
  | { readonly kind: 'unknown'; readonly reason: string };

/** The verdict on one attempt, and where a refused operation may be tried next. */
export type Verdict =
  | { readonly kind: 'ok'; readonly output: KvOutput }
  | {
      readonly kind: 'fail';
      /** Another node may take it: the store refused before applying anything (307, 503, not sent). */
      readonly retry: boolean;
      /** The leader's URL from a 307. */
      readonly redirectTo?: string;
      /** A 4xx other than the refusals: the request itself was wrong (a bug of the workload). */
      readonly badRequest?: boolean;
    }
  | { readonly kind: 'info' };

export interface HttpRequest {
  readonly method: 'GET' | 'PUT' | 'DELETE' | 'POST';
  /** Path and query, from the origin on. */
  readonly path: string;
  readonly body?: string;
}

/** The store's request for an operation: gets are always the linearizable ones (the model's reads). */
export function requestFor(input: KvInput): HttpRequest {
  const path = `/kv/${encodeURIComponent(input.key)}`;
  switch (input.type) {
    case 'get':
      return { method: 'GET', path: `${path}?linearizable` };
    case 'put':
      return { method: 'PUT', path, body: input.value };
    case 'delete':
      return { method: 'DELETE', path };
    case 'cas':
      return {
        method: 'POST',
        path: `${path}/cas`,
        body: JSON.stringify({ expected: input.expected, new: input.value }),
      };
  }
}

function jsonField(text: string, field: string): unknown {
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null
      ? (parsed as Record<string, unknown>)[field]
      : undefined;
  } catch {
    return undefined;
  }
}

/** The output of a successful answer, or undefined when the answer does not read as one. */
function outputOf(input: KvInput, status: number, text: string): KvOutput | undefined {
  switch (input.type) {
    case 'get':
      if (status === 200) return { value: text };
      // 404 also answers an unknown route; only the store's "absent" says the key has no value.
      return status === 404 && jsonField(text, 'error') === 'absent' ? { value: null } : undefined;
    case 'put':
    case 'delete':
      return status === 204 ? null : undefined;
    case 'cas': {
      const swapped = status === 200 ? jsonField(text, 'swapped') : undefined;
      return typeof swapped === 'boolean' ? { swapped } : undefined;
    }
  }
}

/**
 * What one attempt proves (the store's README, "Errors, and what a client may conclude"): 307 and
 * 503 refuse before anything is appended; 504, a 5xx, or an answer that does not read as one,
 * leave the outcome unknown; so does anything that went wrong after the connection was made.
 * Reads follow the same rules, although an unknown read changes nothing (the checker drops it).
 */
export function classifyAttempt(input: KvInput, attempt: AttemptResult): Verdict {
  if (attempt.kind === 'not-sent') return { kind: 'fail', retry: true };
  if (attempt.kind === 'unknown') return { kind: 'info' };
  const { status, text, location } = attempt;
  const output = outputOf(input, status, text);
  if (output !== undefined) return { kind: 'ok', output };
  if (status === 307 && location !== undefined) return { kind: 'fail', retry: true, redirectTo: location };
  if (status === 307 || status === 503) return { kind: 'fail', retry: true };
  if ([400, 404, 405, 413].includes(status)) return { kind: 'fail', retry: false, badRequest: true };
  return { kind: 'info' };
}

/** A whole answer larger than this is not the store's (values and errors are a few bytes). */
const MAX_ANSWER_BYTES = 128 * 1024;
/**
 * A connection not made within this gives up on that node (nothing was sent, so another may be
 * tried): the veths answer in well under a millisecond, and a lost SYN is resent after 1 s, so
 * this is a cut link or a node whose listen queue is full, not a slow one.
 */
export const CONNECT_TIMEOUT_MS = 1_500;

/**
 * Sends one request on a fresh connection (no keep-alive pool: a pooled socket could carry a
 * retry nobody asked for, and whether the request left this machine is known only per
 * connection), within `timeoutMs`.
 */
export function sendHttp(
  origin: string,
  httpRequest: HttpRequest,
  timeoutMs: number,
): Promise<AttemptResult> {
  return new Promise((resolve) => {
    let connected = false;
    let settled = false;
    const finish = (result: AttemptResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(connectTimer);
      resolve(result);
    };
    const failed = (reason: string) =>
      finish(connected ? { kind: 'unknown', reason } : { kind: 'not-sent', reason });
    const body = httpRequest.body === undefined ? undefined : Buffer.from(httpRequest.body);
    const outgoing = request(`${origin}${httpRequest.path}`, {
      method: httpRequest.method,
      agent: false,
      headers: body === undefined ? {} : { 'content-length': String(body.length) },
    });
    const timer = setTimeout(() => {
      failed(`no answer within ${timeoutMs} ms`);
      outgoing.destroy();
    }, timeoutMs);
    const connectTimer = setTimeout(
      () => {
        if (connected) return;
        failed(`no connection within ${CONNECT_TIMEOUT_MS} ms`);
        outgoing.destroy();
      },
      Math.min(CONNECT_TIMEOUT_MS, timeoutMs),
    );
    outgoing.on('socket', (socket) =>
      socket.once('connect', () => {
        connected = true;
        clearTimeout(connectTimer);
      }),
    );
    outgoing.on('error', (error: NodeJS.ErrnoException) => failed(error.code ?? error.message));
    outgoing.on('response', (response) => {
      const chunks: Buffer[] = [];
      let sizeInBytes = 0;
      response.on('data', (chunk: Buffer) => {
        sizeInBytes += chunk.length;
        if (sizeInBytes > MAX_ANSWER_BYTES) {
          failed(`an answer over ${MAX_ANSWER_BYTES} bytes`);
          outgoing.destroy();
          return;
        }
        chunks.push(chunk);
      });
      response.on('error', (error: NodeJS.ErrnoException) => failed(error.code ?? error.message));
      response.on('close', () => {
        if (!response.complete) return failed('the connection closed during the answer');
        const location = response.headers.location;
        finish({
          kind: 'answer',
          status: response.statusCode ?? 0,
          text: Buffer.concat(chunks).toString('utf8'),
          location: location === undefined ? undefined : String(location),
        });
      });
    });
    outgoing.end(body);
  });
}

export type Send = (origin: string, httpRequest: HttpRequest, timeoutMs: number) => Promise<AttemptResult>;

export interface PerformOptions {
  /** The node to try first, then the others in the order of `origins`. */
  readonly firstOrigin: string;
  /** Every node's origin (`http://host:port`): nothing else is ever sent to, redirects included. */
  readonly origins: readonly string[];
  /** The whole operation, every attempt included, ends by then (monotonic ms). */
  readonly deadlineMs: number;
  readonly maxAttempts: number;
  readonly send: Send;
  readonly nowMs: () => number;
}

export interface Performed {
  readonly verdict: Verdict;
  readonly attempts: number;
  /** The node that answered ok or redirected last: where this client sends its next write. */
  readonly leaderHint: string | undefined;
  /** A redirect to an address outside the run was refused (the operation then failed unsent). */
  readonly foreignRedirect: boolean;
}

/**
 * Runs one operation: tries a node, follows a 307 to the leader it names (only to a node of the
 * run), tries the next node after any other definite refusal, and stops at the first `ok`, the
 * first unknown outcome, `maxAttempts` or the deadline. Only definite refusals lead to another
 * attempt, so the operation took effect at most once whatever the verdict.
 */
export async function performOperation(input: KvInput, options: PerformOptions): Promise<Performed> {
  const httpRequest = requestFor(input);
  let origin = options.firstOrigin;
  let leaderHint: string | undefined;
  let verdict: Verdict = { kind: 'fail', retry: false };
  let attempts = 0;
  while (attempts < options.maxAttempts) {
    const remainingMs = options.deadlineMs - options.nowMs();
    if (remainingMs <= 0) break;
    attempts += 1;
    verdict = classifyAttempt(input, await options.send(origin, httpRequest, remainingMs));
    if (verdict.kind === 'ok') leaderHint = origin;
    if (verdict.kind !== 'fail' || !verdict.retry) break;
    if (verdict.redirectTo !== undefined) {
      const target = ownOrigin(verdict.redirectTo, options.origins);
      if (target === undefined) {
        return { verdict: { kind: 'fail', retry: false }, attempts, leaderHint, foreignRedirect: true };
      }
      leaderHint = target;
      // A node that names itself as leader while refusing: ask the next one instead.
      origin = target === origin ? nextOrigin(options.origins, origin) : target;
    } else {
      origin = nextOrigin(options.origins, origin);
    }
  }
  return { verdict, attempts, leaderHint, foreignRedirect: false };
}

function nextOrigin(origins: readonly string[], origin: string): string {
  const index = origins.indexOf(origin);
  return origins[(index + 1) % origins.length] as string;
}
