import { InvalidConfigurationError, KRaftError } from '@kraft/protocol';
import { InvalidListenerConfigError } from '@kraft/transport-tcp';
import { describe, expect, it } from 'vitest';
import { RaftNode } from './raft-node.js';
import { stringSerde } from './record-serde.js';

// None of these get as far as the disk or a socket: the directory does not even exist.
const valid = {
  nodeId: 1,
  directory: '/nonexistent/kraft-raft-node-options',
  listeners: 'CONTROLLER://127.0.0.1:0',
  clusterId: 'options-test',
  serde: stringSerde,
  voters: '1@127.0.0.1:9093',
};

async function refusal(options: unknown): Promise<unknown> {
  return RaftNode.open(options as typeof valid).then(
    () => {
      throw new Error('expected the options to be refused');
    },
    (error: unknown) => error,
  );
}

describe('RaftNode options', () => {
  it.each([
    ['a missing serde', { ...valid, serde: undefined }, /serde/],
    ['a serde without read', { ...valid, serde: { recordSize: () => 0, write: () => 0 } }, /serde/],
    ['a negative node id', { ...valid, nodeId: -1 }, /nodeId/],
    ['an empty directory', { ...valid, directory: '' }, /directory/],
    ['an empty cluster id', { ...valid, clusterId: '' }, /clusterId/],
    ['an unknown option', { ...valid, voter: '1@x:1' }, /unknown option\(s\) voter/],
    ['a misspelt quorum setting', { ...valid, config: { electionTimeoutMS: 5 } }, /electionTimeoutMS/],
    ['a bad node setting', { ...valid, config: { proposeTimeoutMs: 0 } }, /proposeTimeoutMs/],
    ['empty voters', { ...valid, voters: ' ' }, /voters must be/],
    [
      'a state machine without restore',
      { ...valid, stateMachine: { apply() {}, snapshot() {} } },
      /stateMachine/,
    ],
    [
      'a listener without handleCommit',
      { ...valid, listener: { handleLoadSnapshot() {} } },
      /listener must have the methods handleCommit/,
    ],
    [
      'a raw listener without handleLoadSnapshot',
      { ...valid, rawListener: { handleCommit() {} } },
      /rawListener must have the methods handleLoadSnapshot/,
    ],
    [
      'an unknown controller listener',
      { ...valid, controllerListenerName: 'OTHER' },
      /controllerListenerName OTHER/,
    ],
  ])('refuses %s with InvalidConfigurationError', async (_what, options, message) => {
    const error = await refusal(options);
    expect(error).toBeInstanceOf(InvalidConfigurationError);
    expect(String(error)).toMatch(message);
  });

  it('refuses malformed listeners with the transport’s typed error', async () => {
    const error = await refusal({ ...valid, listeners: 'CONTROLLER:/127.0.0.1' });
    expect(error).toBeInstanceOf(InvalidListenerConfigError);
    expect(KRaftError.isInstance(error)).toBe(true);
  });
});
