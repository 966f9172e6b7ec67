import { describe, expect, it } from 'vitest';
import { DynamicVoterError } from './dynamic-voter-error.js';
import { formatDynamicVoter, parseDynamicVoter, parseDynamicVoters } from './dynamic-voters.js';

const DIRECTORY_B8TR = 'b8tRS7h4TJ2Vt43Dp85v2A';
const DIRECTORY_J8AA = 'J8aAPcfLQt2bqs1JT_rMgQ';

function reasonOf(text: string, parse: (text: string) => unknown = parseDynamicVoter): string {
  try {
    parse(text);
  } catch (error) {
    if (DynamicVoterError.isDynamicVoterError(error)) return error.reason;
    throw error;
  }
  throw new Error(`'${text}' parsed`);
}

describe('parseDynamicVoter (Kafka DynamicVoter.parse)', () => {
  it('reads id@host:port:directoryId, trimmed', () => {
    const voter = parseDynamicVoter(`  2@controller-2.example.com:9093:${DIRECTORY_B8TR}\t`);
    expect(voter).toMatchObject({ nodeId: 2, host: 'controller-2.example.com', port: 9093 });
    expect(voter.directoryId.toString()).toBe(DIRECTORY_B8TR);
  });

  it('reads a bracketed IPv6 host and prints it back in brackets', () => {
    const voter = parseDynamicVoter(`3@[fe80::1]:9093:${DIRECTORY_B8TR}`);
    expect(voter.host).toBe('fe80::1');
    expect(formatDynamicVoter(voter)).toBe(`3@[fe80::1]:9093:${DIRECTORY_B8TR}`);
    expect(formatDynamicVoter(parseDynamicVoter(`0@h:1:${DIRECTORY_B8TR}`))).toBe(`0@h:1:${DIRECTORY_B8TR}`);
  });

  it("accepts what Java's Integer.parseInt accepts: a sign, leading zeros", () => {
    expect(parseDynamicVoter(`+007@h:+0080:${DIRECTORY_B8TR}`)).toMatchObject({ nodeId: 7, port: 80 });
  });

  it.each([
    ['1localhost:9093:x', 'No @ found in dynamic voter string.'],
    ['@localhost:9093:x', 'Invalid @ at beginning of dynamic voter string.'],
    ['one@localhost:9093:x', 'Failed to parse node id in dynamic voter string.'],
    ['2147483648@localhost:9093:x', 'Failed to parse node id in dynamic voter string.'],
    ['-1@localhost:9093:x', 'Invalid negative node id -1 in dynamic voter string.'],
    ['1@', 'No hostname found after node id.'],
    ['1@[::1:9093:x', 'Hostname began with left bracket, but no right bracket was found.'],
    ['1@[::1]9093:x', 'Port section must start with a colon.'],
    ['1@localhost', 'No colon following hostname could be found.'],
    ['1@localhost:9093', 'No colon following port could be found.'],
    ['1@localhost:http:x', 'Failed to parse port in dynamic voter string.'],
    ['1@localhost:65536:x', 'Invalid port 65536 in dynamic voter string.'],
    ['1@localhost:-1:x', 'Invalid port -1 in dynamic voter string.'],
  ])("refuses '%s' with Kafka's message", (text, reason) => {
    expect(reasonOf(text)).toBe(reason);
  });

  it('refuses a directory id that is not a Uuid, naming why', () => {
    expect(reasonOf('1@localhost:9093:not-a-uuid')).toMatch(
      /^Failed to parse directory ID in dynamic voter string: uuid text 'not-a-uuid'/,
    );
    expect(reasonOf('1@localhost:9093:')).toMatch(/^Failed to parse directory ID in dynamic voter string: /);
  });

  it('refuses what Kafka would write but no server can use: an empty host, a reserved directory id', () => {
    expect(reasonOf(`1@:9093:${DIRECTORY_B8TR}`)).toBe('Empty hostname in dynamic voter string.');
    expect(reasonOf(`1@[]:9093:${DIRECTORY_B8TR}`)).toBe('Empty hostname in dynamic voter string.');
    expect(reasonOf('1@h:9093:AAAAAAAAAAAAAAAAAAAAAA')).toMatch(
      /^Reserved directory ID AAAAAAAAAAAAAAAAAAAAAA/,
    );
    expect(reasonOf('1@h:9093:AAAAAAAAAAAAAAAAAAAAYw')).toMatch(/^Reserved directory ID/); // Uuid(0, 99)
    expect(parseDynamicVoter('1@h:9093:AAAAAAAAAAAAAAAAAAAAZA').directoryId.leastSignificantBits).toBe(100n);
  });

  it('names the entry in the message', () => {
    expect(() => parseDynamicVoter(' 1@localhost ')).toThrow(
      "No colon following hostname could be found. (in '1@localhost')",
    );
  });
});

describe('parseDynamicVoters (Kafka DynamicVoters.parse)', () => {
  it('reads comma-separated voters, skips empty entries and sorts them by node id', () => {
    const voters = parseDynamicVoters(` 3@c:9095:${DIRECTORY_B8TR},,1@a:9093:${DIRECTORY_J8AA}, `);
    expect(voters.map((voter) => voter.nodeId)).toEqual([1, 3]);
    expect(voters.map(formatDynamicVoter)).toEqual([
      `1@a:9093:${DIRECTORY_J8AA}`,
      `3@c:9095:${DIRECTORY_B8TR}`,
    ]);
  });

  it('refuses no voter at all', () => {
    expect(reasonOf('', parseDynamicVoters)).toBe('No voters given.');
    expect(reasonOf(' ,,', parseDynamicVoters)).toBe('No voters given.');
    // As in Kafka, only the whole list is trimmed before the split: ' ' is an entry, and not a voter.
    expect(reasonOf(', ,', parseDynamicVoters)).toBe('No @ found in dynamic voter string.');
  });

  it('refuses a node id given twice', () => {
    expect(reasonOf(`1@a:1:${DIRECTORY_B8TR},1@b:2:${DIRECTORY_J8AA}`, parseDynamicVoters)).toBe(
      'Node id 1 was specified more than once.',
    );
  });

  it('stops at the first bad entry', () => {
    expect(reasonOf(`1@a:1:${DIRECTORY_B8TR},2@b`, parseDynamicVoters)).toBe(
      'No colon following hostname could be found.',
    );
  });
});
