import { KRaftError } from '@kraft/protocol';

/** Log fields that say why a connection failed, on one line. */
export type FailureFields =
  | { readonly cause: string; readonly code: string }
  | { readonly err: unknown }
  | Record<string, never>;

/**
 * Codes of the system errors a peer's failure produces (the peer is down, went away, or the
 * network between is): the other side closing is news, but its stack trace names only Node's
 * socket internals.
 */
const PEER_GONE_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNABORTED',
]);

/**
 * What to log about `err`: an error the network or the peer caused (a system error of a socket
 * call, a TLS failure, one of our typed `KRaftError`s such as a frame above the size limit) as
 * its message and code on one line; anything else, which may be a bug, as `err` with its stack.
 */
export function failureFields(err: unknown): FailureFields {
  if (err === undefined) return {};
  const code = errorCode(err);
  if (code !== undefined && isExpectedFailure(err, code)) {
    return { cause: (err as Error).message, code };
  }
  return { err };
}

/** Whether `err` is the other side going away (refused, reset, unreachable), not its misbehaving. */
export function isPeerGone(err: unknown): boolean {
  const code = errorCode(err);
  return code !== undefined && PEER_GONE_CODES.has(code);
}

function errorCode(err: unknown): string | undefined {
  if (!(err instanceof Error)) return undefined;
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

function isExpectedFailure(err: unknown, code: string): boolean {
  if (KRaftError.isInstance(err)) return true;
  // A socket call's system error carries the call's name (`connect`, `read`, `write`).
  if (typeof (err as { syscall?: unknown }).syscall === 'string') return true;
  // OpenSSL's errors (ERR_SSL_*), Node's TLS checks (ERR_TLS_*) and certificate verification
  // codes (CERT_HAS_EXPIRED, ...); Node's other ERR_* codes are programming errors.
  return /^ERR_(SSL|TLS)_/.test(code) || !code.startsWith('ERR_');
}
