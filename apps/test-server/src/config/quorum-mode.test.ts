import { Uuid } from '@kraft/protocol';
import { describe, expect, it } from 'vitest';
import type { BootstrapCheckpoint } from '../storage/bootstrap-checkpoint.js';
import { parseProperties } from './load-server-config.js';
import { resolveQuorumMode } from './quorum-mode.js';
import { parseServerConfig } from './server-config.js';

function config(quorumLines: string) {
  return parseServerConfig(
    parseProperties(
      `node.id=1\nlisteners=PLAINTEXT://127.0.0.1:0\ncontroller.listener.names=PLAINTEXT\nlog.dirs=/unused\n${quorumLines}`,
    ),
  ).config;
}

function checkpoint(kraftVersion: number, voterIds: readonly number[]): BootstrapCheckpoint {
  return {
    path: '/unused/checkpoint',
    kraftVersion,
    voters: voterIds.map((voterId) => ({
      voterId,
      voterDirectoryId: Uuid.randomUuid(),
      endpoints: [{ name: 'PLAINTEXT', host: '127.0.0.1', port: 9000 + voterId }],
      kRaftVersionFeature: { minSupportedVersion: 0, maxSupportedVersion: 1 },
    })),
    lastContainedLogTimestampMs: 0,
  };
}

describe('resolveQuorumMode (Kafka: a kraft.version 1 checkpoint makes the quorum dynamic)', () => {
  it('a kraft.version 1 checkpoint runs at kraft.version 1, counting the other voters it names', () => {
    const mode = resolveQuorumMode(
      config('controller.quorum.bootstrap.servers=127.0.0.1:9001'),
      checkpoint(1, [1, 2, 3]),
    );
    expect(mode).toEqual({ kraftVersion: 1, otherVoterCount: 2, staticVotersIgnored: false });
  });

  it('static voters beside a kraft.version 1 checkpoint: the checkpoint wins, and says so', () => {
    const mode = resolveQuorumMode(config('controller.quorum.voters=1@127.0.0.1:9001'), checkpoint(1, [1]));
    expect(mode).toEqual({ kraftVersion: 1, otherVoterCount: 0, staticVotersIgnored: true });
  });

  it('static voters without a dynamic checkpoint run at kraft.version 0, bootstrap servers or not', () => {
    const both =
      'controller.quorum.voters=1@127.0.0.1:9001,2@127.0.0.1:9002\ncontroller.quorum.bootstrap.servers=127.0.0.1:9002';
    expect(resolveQuorumMode(config(both), undefined)).toEqual({ kraftVersion: 0, otherVoterCount: 1 });
    // --no-initial-controllers beside static voters stays static (KAFKA-19719).
    expect(resolveQuorumMode(config(both), checkpoint(0, []))).toEqual({
      kraftVersion: 0,
      otherVoterCount: 1,
    });
  });

  it('bootstrap servers only, without a checkpoint: a kraft.version 1 observer that knows no voter yet', () => {
    const mode = resolveQuorumMode(config('controller.quorum.bootstrap.servers=127.0.0.1:9002'), undefined);
    expect(mode).toEqual({ kraftVersion: 1, otherVoterCount: undefined, staticVotersIgnored: false });
  });
});
