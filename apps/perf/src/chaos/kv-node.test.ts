import { describe, expect, it } from 'vitest';
import { checkDestinations } from './destinations.js';
import { kvNodeEnvironment, parseKvStatus } from './kv-node.js';

describe('kv nodes in the chaos tier', () => {
  it("reads a kv process's status line as the status the runner follows", () => {
    expect(
      parseKvStatus(
        'kv-status {"role":"leader","epoch":3,"leaderId":2,"highWatermark":120,"logStartOffset":64,"logEndOffset":121,"appliedOffset":119,"restores":2,"pid":4321}',
      ),
    ).toEqual({
      role: 'Leader',
      epoch: 3,
      leaderId: 2,
      highWatermark: 120,
      logEndOffset: 121,
      appliedOffset: 119,
      logStartOffset: 64,
      restores: 2,
      processId: 4321,
    });
    expect(
      parseKvStatus(
        'kv-status {"role":"unattached","epoch":0,"leaderId":null,"highWatermark":null,"logEndOffset":null,"appliedOffset":null}',
      ),
    ).toEqual({
      role: 'Unattached',
      epoch: 0,
      leaderId: undefined,
      highWatermark: undefined,
      logEndOffset: 0,
      appliedOffset: undefined,
      logStartOffset: undefined,
      restores: undefined,
      processId: undefined,
    });
    for (const line of [
      'kv-status {',
      'kv-status {"epoch":1}',
      'kv-status null',
      '{"level":30}',
      'Role: Leader',
    ]) {
      expect(parseKvStatus(line)).toBeUndefined();
    }
  });

  it("gives every node the run's addresses only, on fixed ports, with the bug off unless planted", () => {
    const addresses = new Map([
      [1, '10.213.0.1'],
      [2, '10.213.0.2'],
      [3, '10.213.0.3'],
    ]);
    const settings = {
      nodeId: 2,
      directory: '/tmp/kraftchaos-1-ab/n2/log',
      nodeIds: [1, 2, 3],
      addressOf: (nodeId: number) => addresses.get(nodeId) as string,
      raftPort: 9093,
      httpPort: 8080,
      statusIntervalMs: 500,
      snapshotEveryRecords: 500,
      staleLinearizableReads: false,
    };
    const environment = kvNodeEnvironment(settings);
    expect(environment).toMatchObject({
      KV_NODE_ID: '2',
      KV_HOST: '10.213.0.2',
      KV_VOTERS: '1@10.213.0.1:9093,2@10.213.0.2:9093,3@10.213.0.3:9093',
      KV_HTTP_URLS:
        '{"1":"http://10.213.0.1:8080","2":"http://10.213.0.2:8080","3":"http://10.213.0.3:8080"}',
      KV_STATUS_INTERVAL_MS: '500',
      KV_STALE_LINEARIZABLE_READS: '0',
    });
    expect(JSON.parse(environment['KV_RAFT_CONFIG'] as string)).toEqual({
      proposeTimeoutMs: 4000,
      snapshotEveryRecords: 500,
      logCleanIntervalMs: 1000,
    });
    expect(JSON.parse(environment['KV_LOG_CONFIG'] as string)).toEqual({
      internalSegmentBytes: 65536,
      retentionMaxBytes: 262144,
    });
    const owned = [...addresses.values()];
    expect(() =>
      checkDestinations('node 2', Object.values(environment).join('\n'), (host) => owned.includes(host)),
    ).not.toThrow();
    expect(
      kvNodeEnvironment({ ...settings, staleLinearizableReads: true })['KV_STALE_LINEARIZABLE_READS'],
    ).toBe('1');
    // A node outside the run's addresses in the voters is caught before the node starts.
    const leaky = kvNodeEnvironment({
      ...settings,
      addressOf: (id) => (id === 3 ? '127.0.0.1' : `10.213.0.${id}`),
    });
    expect(() =>
      checkDestinations('node 2', Object.values(leaky).join('\n'), (host) => owned.includes(host)),
    ).toThrow(/127\.0\.0\.1/);
  });
});
