import { describe, expect, it } from 'vitest';
import { ProtocolError } from '../errors/protocol-error.js';
import { Uuid } from '../primitives/uuid.js';
import { QuorumStateData } from './quorum-state-data.js';
import { readQuorumStateJson, writeQuorumStateJson } from './quorum-state-file.js';

// Examples from kraft-formats.md §6, as Kafka's FileQuorumStateStore writes them.
const V1_VOTED =
  '{"leaderId":-1,"leaderEpoch":2,"votedId":1,"votedDirectoryId":"b8tRS7h4TJ2Vt43Dp85v2A","data_version":1}';
const V1_LEADER =
  '{"leaderId":1,"leaderEpoch":3,"votedId":-1,"votedDirectoryId":"AAAAAAAAAAAAAAAAAAAAAA","data_version":1}';
const V0 =
  '{"clusterId":"","leaderId":1,"leaderEpoch":2,"votedId":-1,"appliedOffset":0,"currentVoters":[{"voterId":1},{"voterId":2},{"voterId":3}],"data_version":0}';

describe('quorum-state file JSON', () => {
  it.each([V1_VOTED, V1_LEADER, V0])('reads and writes %s byte for byte', (text) => {
    const { data, version } = readQuorumStateJson(text);
    expect(writeQuorumStateJson(data, version)).toBe(text);
  });

  it('decodes the documented values', () => {
    expect(readQuorumStateJson(V1_VOTED)).toEqual({
      version: 1,
      data: QuorumStateData.defaults({
        leaderId: -1,
        leaderEpoch: 2,
        votedId: 1,
        votedDirectoryId: Uuid.fromString('b8tRS7h4TJ2Vt43Dp85v2A'),
      }),
    });
    expect(readQuorumStateJson(V0).data.currentVoters).toEqual([
      { voterId: 1 },
      { voterId: 2 },
      { voterId: 3 },
    ]);
  });

  it('rejects a missing data_version, an unknown one, a missing mandatory field and bad JSON', () => {
    expect(() => readQuorumStateJson('{"leaderId":1}')).toThrow(/data_version/);
    expect(() => readQuorumStateJson('{"data_version":2}')).toThrow(ProtocolError);
    expect(() => readQuorumStateJson('{"leaderId":-1,"leaderEpoch":2,"votedId":1,"data_version":1}')).toThrow(
      /votedDirectoryId: mandatory/,
    );
    expect(() => readQuorumStateJson('{"leaderId":')).toThrow(ProtocolError);
    expect(() =>
      readQuorumStateJson(
        '{"leaderId":"x","leaderEpoch":2,"votedId":1,"votedDirectoryId":"AAAAAAAAAAAAAAAAAAAAAA","data_version":1}',
      ),
    ).toThrow(/leaderId: expected an integer/);
  });
});
