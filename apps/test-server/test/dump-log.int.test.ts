import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MetadataLogFixture, writeMetadataLogFixture } from './support/metadata-log-fixture.js';

// Runs bin/kraft-dump-log.sh as an operator would: through bash, tsx's loader and the real process
// exit codes, on a log and a snapshot written by the log package.
const SCRIPT = join(import.meta.dirname, '..', 'bin', 'kraft-dump-log.sh');

function runScript(...argv: string[]) {
  const result = spawnSync(SCRIPT, argv, { encoding: 'utf8', timeout: 60_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

let fixture: MetadataLogFixture;
beforeAll(async () => {
  fixture = await writeMetadataLogFixture();
});
afterAll(() => rmSync(fixture.directory, { recursive: true, force: true }));

describe('bin/kraft-dump-log.sh', () => {
  it('dumps a segment and a snapshot as text and exits 0', () => {
    const result = runScript(
      '--cluster-metadata-decoder',
      '--files',
      `${fixture.segmentPath},${fixture.snapshotPath}`,
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines.filter((line) => line.startsWith('baseOffset: '))).toHaveLength(5);
    expect(lines.filter((line) => line.includes('payload: {"type":"TOPIC_RECORD"'))).toHaveLength(2);
    expect(lines).toContain('Snapshot end offset: 4, epoch: 1');
  });

  it('writes JSON lines with --json', () => {
    const result = runScript('--json', '--files', fixture.snapshotPath);
    expect(result.code).toBe(0);
    const batches = result.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(batches.map((batch) => batch.records.length)).toEqual([1, 3, 1]);
  });

  it('exits 1 naming the file and byte of a corrupted batch', () => {
    const path = join(fixture.directory, '00000000000000000900.log');
    const bytes = readFileSync(fixture.segmentPath);
    bytes[bytes.length - 1] = (bytes[bytes.length - 1] as number) ^ 0x01;
    writeFileSync(path, bytes);
    const result = runScript('--files', path);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(new RegExp(`^kraft-dump-log: ${path}: at byte 91: batch at offset 1: CRC`));
    expect(result.stdout).toContain('LeaderChange: ');
  });

  it('exits 2 with the usage on a bad command line', () => {
    const result = runScript('--files');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Usage: kraft-dump-log.sh [options]');
  });
});
