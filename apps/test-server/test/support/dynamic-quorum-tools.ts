import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RecordBatch } from '@kraft/records';
import { expect } from 'vitest';
import { runScript, type ScriptRun } from './run-script.js';
import { bytesBelowOffset, type TestCluster } from './test-cluster.js';

// The operator's tools of a dynamic quorum (kraft.version 1, KIP-853), run as scripts, and what
// the dynamic quorum tests read back: the tools' output, the log dirs, the nodes' histories.
const BIN = join(import.meta.dirname, '..', '..', 'bin');

export function storageTool(...argv: string[]): { code: number | null; stdout: string; stderr: string } {
  const result = spawnSync(join(BIN, 'kraft-storage.sh'), argv, { encoding: 'utf8', timeout: 60_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

export function metadataQuorumTool(...argv: string[]): Promise<ScriptRun> {
  return runScript(join(BIN, 'kraft-metadata-quorum.sh'), argv);
}

/** A controller's config with bootstrap servers in place of static voters. */
export function dynamicConfig(options: {
  nodeId: number;
  port: number;
  logDirectory: string;
  bootstrapPorts: readonly number[];
}): string {
  return [
    `node.id=${options.nodeId}`,
    `listeners=PLAINTEXT://127.0.0.1:${options.port}`,
    'controller.listener.names=PLAINTEXT',
    `controller.quorum.bootstrap.servers=${options.bootstrapPorts.map((port) => `127.0.0.1:${port}`).join(',')}`,
    `log.dirs=${options.logDirectory}`,
  ].join('\n');
}

/** A `format` with `--standalone` or `--initial-controllers`: a kraft.version 1 bootstrap checkpoint. */
export function expectFormatted(result: ReturnType<typeof storageTool>): void {
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  expect(result.stdout).toContain('with kraft.version 1.');
}

/** The rows of `describe --replication`: node id, log end offset, status. */
export function replicationRows(stdout: string): { nodeId: number; logEndOffset: bigint; status: string }[] {
  const [, ...rows] = stdout.trimEnd().split('\n');
  return rows.map((row) => {
    const cells = row.split('\t').map((cell) => cell.trim());
    return { nodeId: Number(cells[0]), logEndOffset: BigInt(cells[2] as string), status: cells[6] as string };
  });
}

/** What `describe --status` says: the leader, the high watermark, the voter and observer ids. */
export interface QuorumStatus {
  readonly leaderId: number;
  readonly leaderEpoch: number;
  readonly highWatermark: bigint;
  readonly voterIds: readonly number[];
  readonly observerIds: readonly number[];
}

export function parseQuorumStatus(stdout: string): QuorumStatus {
  const field = (name: string): string => {
    const line = stdout.split('\n').find((candidate) => candidate.startsWith(`${name}:`));
    if (line === undefined) throw new Error(`no ${name} in:\n${stdout}`);
    return line.slice(name.length + 1).trim();
  };
  const ids = (name: string): number[] =>
    (JSON.parse(field(name)) as { id: number }[]).map((replica) => replica.id).sort((a, b) => a - b);
  return {
    leaderId: Number(field('LeaderId')),
    leaderEpoch: Number(field('LeaderEpoch')),
    highWatermark: BigInt(field('HighWatermark')),
    voterIds: ids('CurrentVoters'),
    observerIds: ids('CurrentObservers'),
  };
}

/** The `directory.id` of a formatted log dir's `meta.properties`. */
export function directoryIdOf(logDirectory: string): string {
  const text = readFileSync(join(logDirectory, 'meta.properties'), 'utf8');
  const match = /^directory\.id=(.+)$/m.exec(text);
  if (match === null) throw new Error(`no directory.id in ${logDirectory}/meta.properties`);
  return (match[1] as string).trim();
}

/** One acknowledged record of a `--history-file`: its offset and the tag its leader gave it. */
export interface AcknowledgedRecord {
  readonly offset: number;
  readonly tag: string;
}

/** The records the `ok` lines of these history files acknowledge (`node/epoch/sequence` tags). */
export function acknowledgedRecords(historyFiles: readonly string[]): AcknowledgedRecord[] {
  const acknowledged: AcknowledgedRecord[] = [];
  for (const file of historyFiles) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue; // a node that never led (nor started its workload) may not have written one
    }
    for (const line of text.split('\n')) {
      if (line === '') continue;
      const event = JSON.parse(line) as {
        type: string;
        node: number;
        epoch: number;
        firstSequence: number;
        count: number;
        firstOffset?: number;
      };
      if (event.type !== 'ok') continue;
      for (let index = 0; index < event.count; index += 1) {
        acknowledged.push({
          offset: (event.firstOffset as number) + index,
          tag: `${event.node}/${event.epoch}/${event.firstSequence + index}`,
        });
      }
    }
  }
  return acknowledged;
}

/**
 * The tag of every data record of node `nodeId`'s log in whole batches below `offset`, by offset
 * (control batches skipped; a record too short for a tag maps to `untagged`).
 */
export function recordTags(testCluster: TestCluster, nodeId: number, offset: number): Map<number, string> {
  const log = testCluster.readLogBytes(nodeId);
  const end = bytesBelowOffset(log, offset);
  const tags = new Map<number, string>();
  let position = 0;
  while (position < end) {
    const batch = new RecordBatch(log.subarray(position, position + 12 + log.readInt32BE(position + 8)));
    position += batch.sizeInBytes;
    batch.ensureValid();
    if (batch.isControl) continue;
    for (const record of batch.records()) {
      const value = record.value;
      if (value === null || value.length < 16) {
        tags.set(record.offset, 'untagged');
        continue;
      }
      tags.set(record.offset, `${value.readInt32BE(0)}/${value.readInt32BE(4)}/${value.readBigInt64BE(8)}`);
    }
  }
  return tags;
}
