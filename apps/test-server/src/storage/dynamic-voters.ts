import { KRaftError, Uuid } from '@kraft/protocol';
import { DynamicVoterError } from './dynamic-voter-error.js';

/**
 * One KIP-853 voter as the storage tool's `--initial-controllers` names it (Kafka's
 * `DynamicVoter`): `id@host:port:directoryId`, the host in brackets when it is an IPv6 address.
 */
export interface DynamicVoter {
  readonly nodeId: number;
  readonly host: string;
  readonly port: number;
  readonly directoryId: Uuid;
}

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;
const MAXIMUM_PORT = 65535;

/** Java's `String.trim()`: strips code points up to U+0020 at both ends, nothing else. */
function javaTrim(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && text.charCodeAt(start) <= 0x20) start += 1;
  while (end > start && text.charCodeAt(end - 1) <= 0x20) end -= 1;
  return text.slice(start, end);
}

/** Java's `Integer.parseInt` on ASCII digits: an optional sign, digits, within int32; else undefined. */
function parseJavaInt(text: string): number | undefined {
  if (!/^[+-]?\d+$/.test(text)) return undefined;
  const value = Number(text);
  return value >= INT32_MIN && value <= INT32_MAX ? value : undefined;
}

/**
 * Kafka's `DirectoryId.reserved`: `Uuid(0, n)` with n < 100 (the signed low half, as Java compares
 * it) has a meaning (unassigned, lost, migrating...) and is never a directory's id.
 */
export function isReservedDirectoryId(uuid: Uuid): boolean {
  return uuid.mostSignificantBits === 0n && uuid.leastSignificantBits < 100n;
}

/**
 * Parses one `id@host:port:directoryId` with Kafka's `DynamicVoter.parse` rules and messages (the
 * entry is trimmed; a host starting with `[` runs to the next `]`). Two checks are ours, because
 * Kafka would write a voter that cannot work: an empty host, and a reserved directory id (the
 * zero id means "no directory id" in a VotersRecord, and the server refuses the others).
 *
 * @throws DynamicVoterError naming the entry and the rule it breaks.
 */
export function parseDynamicVoter(entryText: string): DynamicVoter {
  const entry = javaTrim(entryText);
  const fail = (reason: string, cause?: unknown): never => {
    throw new DynamicVoterError(entry, reason, cause === undefined ? undefined : { cause });
  };
  const atIndex = entry.indexOf('@');
  if (atIndex < 0) fail('No @ found in dynamic voter string.');
  if (atIndex === 0) fail('Invalid @ at beginning of dynamic voter string.');
  const nodeId = parseJavaInt(entry.slice(0, atIndex));
  if (nodeId === undefined) return fail('Failed to parse node id in dynamic voter string.');
  if (nodeId < 0) fail(`Invalid negative node id ${nodeId} in dynamic voter string.`);
  let rest = entry.slice(atIndex + 1);
  if (rest === '') fail('No hostname found after node id.');
  let host: string;
  if (rest.startsWith('[')) {
    const endBracketIndex = rest.indexOf(']');
    if (endBracketIndex < 0) fail('Hostname began with left bracket, but no right bracket was found.');
    host = rest.slice(1, endBracketIndex);
    rest = rest.slice(endBracketIndex + 1);
  } else {
    const endColonIndex = rest.indexOf(':');
    if (endColonIndex < 0) fail('No colon following hostname could be found.');
    host = rest.slice(0, endColonIndex);
    rest = rest.slice(endColonIndex);
  }
  if (!rest.startsWith(':')) fail('Port section must start with a colon.');
  rest = rest.slice(1);
  const endColonIndex = rest.indexOf(':');
  if (endColonIndex < 0) fail('No colon following port could be found.');
  const port = parseJavaInt(rest.slice(0, endColonIndex));
  if (port === undefined) return fail('Failed to parse port in dynamic voter string.');
  if (port < 0 || port > MAXIMUM_PORT) fail(`Invalid port ${port} in dynamic voter string.`);
  if (host === '') fail('Empty hostname in dynamic voter string.');
  const directoryText = rest.slice(endColonIndex + 1);
  let directoryId: Uuid;
  try {
    directoryId = Uuid.fromString(directoryText);
  } catch (error) {
    if (!KRaftError.isInstance(error)) throw error;
    return fail(`Failed to parse directory ID in dynamic voter string: ${error.message}`, error);
  }
  if (isReservedDirectoryId(directoryId)) {
    fail(
      `Reserved directory ID ${directoryText} in dynamic voter string; use a random one (kraft-storage.sh random-uuid).`,
    );
  }
  return { nodeId, host, port, directoryId };
}

/**
 * Parses `--initial-controllers` (Kafka's `DynamicVoters.parse`): comma-separated entries, empty
 * ones skipped, at least one, no node id twice. The voters come back sorted by node id, the
 * order of Kafka's `TreeMap` of them.
 *
 * @throws DynamicVoterError for a bad entry, no entry at all, or a repeated node id.
 */
export function parseDynamicVoters(text: string): DynamicVoter[] {
  const voters = new Map<number, DynamicVoter>();
  for (const entry of javaTrim(text).split(',')) {
    if (entry === '') continue;
    const voter = parseDynamicVoter(entry);
    if (voters.has(voter.nodeId)) {
      throw new DynamicVoterError('', `Node id ${voter.nodeId} was specified more than once.`);
    }
    voters.set(voter.nodeId, voter);
  }
  if (voters.size === 0) throw new DynamicVoterError('', 'No voters given.');
  return [...voters.values()].sort((left, right) => left.nodeId - right.nodeId);
}

/** Kafka's `DynamicVoter.toString()`: `id@host:port:directoryId`, an IPv6 host in brackets. */
export function formatDynamicVoter(voter: DynamicVoter): string {
  const host = voter.host.includes(':') ? `[${voter.host}]` : voter.host;
  return `${voter.nodeId}@${host}:${voter.port}:${voter.directoryId.toString()}`;
}
