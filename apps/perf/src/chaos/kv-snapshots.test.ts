import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { countKvSnapshots, KvSnapshotActivity, missingSnapshotProblem } from './kv-snapshots.js';

let root: string | undefined;

afterEach(() => {
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
  root = undefined;
});

function partitionDirectory(name: string, files: readonly string[]): string {
  root ??= mkdtempSync(join(tmpdir(), 'kv-snapshots-'));
  const directory = join(root, name);
  mkdirSync(directory, { recursive: true });
  for (const file of files) writeFileSync(join(directory, file), '');
  return directory;
}

describe('countKvSnapshots', () => {
  it('counts snapshot files per node, leaving out the bootstrap checkpoint and other files', () => {
    const first = partitionDirectory('n1', [
      '00000000000000000000-0000000000.checkpoint',
      '00000000000000000512-0000000003.checkpoint',
      '00000000000000001024-0000000004.checkpoint',
      '00000000000000000000.log',
      '00000000000000001536-0000000004.checkpoint.part',
      'quorum-state',
    ]);
    const second = partitionDirectory('n2', ['00000000000000000000-0000000000.checkpoint']);
    const third = partitionDirectory('n3', ['00000000000000000512-0000000003.checkpoint']);
    const missing = join(first, 'no-such-directory');
    expect(countKvSnapshots([first, second, third, missing])).toEqual({
      files: 3,
      nodes: 2,
      highestEndOffset: 1024,
    });
  });

  it('reports no snapshots as -1', () => {
    expect(countKvSnapshots([partitionDirectory('n1', [])])).toEqual({
      files: 0,
      nodes: 0,
      highestEndOffset: -1,
    });
  });
});

describe('missingSnapshotProblem', () => {
  const none = { files: 0, nodes: 0, highestEndOffset: -1 };
  it('fails a run that committed two intervals without any snapshot', () => {
    expect(missingSnapshotProblem(none, 1000, 500)).toMatch(/no node took a snapshot/);
  });
  it('passes a run with a snapshot, or one too short to owe one', () => {
    expect(missingSnapshotProblem({ files: 1, nodes: 1, highestEndOffset: 600 }, 5000, 500)).toBeUndefined();
    expect(missingSnapshotProblem(none, 999, 500)).toBeUndefined();
  });
});

describe('KvSnapshotActivity', () => {
  it('adds each process’s restores once, a restart’s in full, and keeps the highest log start', () => {
    const activity = new KvSnapshotActivity();
    activity.observe({ processId: 100, restores: 0, logStartOffset: 0 });
    activity.observe({ processId: 100, restores: 1, logStartOffset: 400 });
    activity.observe({ processId: 100, restores: 1, logStartOffset: 380 });
    activity.observe({ processId: 200, restores: 2 });
    // Node 1 restarted as process 300, which restored at once and again later.
    activity.observe({ processId: 300, restores: 1, logStartOffset: 800 });
    activity.observe({ processId: 300, restores: 2 });
    activity.observe({ restores: 5 });
    activity.observe({});
    expect(activity.restores()).toBe(1 + 2 + 2);
    expect(activity.highestLogStartOffset()).toBe(800);
  });
});
