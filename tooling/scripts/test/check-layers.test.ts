import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { layerProblems } from '../check-layers.js';

// Built from parts so this file does not itself import what it names.
const importOf = (entry: string): string => `import { x } from '${'@kraft'}/${entry}';\n`;

const PACKAGES: Record<string, string> = {
  protocol: '@kraft/protocol',
  records: '@kraft/records',
  log: '@kraft/log',
  raft: '@kraft/raft',
  metadata: '@kraft/metadata',
  'transport-tcp': '@kraft/transport-tcp',
};

let root: string | undefined;

afterEach(() => {
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
  root = undefined;
});

/** A repository with the six packages and the given files (path → text). */
function repository(files: Record<string, string>): string {
  root = mkdtempSync(join(tmpdir(), 'check-layers-'));
  for (const [directory, name] of Object.entries(PACKAGES)) {
    mkdirSync(join(root, 'packages', directory, 'src'), { recursive: true });
    writeFileSync(join(root, 'packages', directory, 'package.json'), JSON.stringify({ name }));
  }
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

/** The problems in a stable order (directory listings come in no promised order). */
function sortedProblems(tree: string): string[] {
  return sorted(layerProblems(tree));
}

function sorted(lines: readonly string[]): string[] {
  return [...lines].sort();
}

describe('check-layers', () => {
  it('passes a tree that keeps every rule', () => {
    const tree = repository({
      'packages/raft/src/node/raft-node.ts': importOf('transport-tcp') + importOf('log'),
      'packages/raft/src/io/driver.ts': importOf('log'),
      'packages/raft/src/testing/cluster.ts': importOf('log'),
      'packages/raft/src/states/leader.test.ts': importOf('raft/test-kit'),
      'packages/metadata/src/loader.test.ts': importOf('raft/test-kit'),
      'apps/perf/src/metadata.bench.ts': importOf('raft/test-kit'),
      'apps/perf/test/helper.ts': importOf('raft/test-kit'),
      'packages/records/src/codec.test.ts': importOf('vitest-config/module-load-recorder'),
    });
    expect(sortedProblems(tree)).toEqual([]);
  });

  it('lets only tests use the test tooling', () => {
    const tree = repository({
      'packages/records/src/codec.ts': importOf('vitest-config/module-load-recorder'),
    });
    expect(sortedProblems(tree)).toEqual(
      sorted([
        'packages/records/src/codec.ts: imports @kraft/vitest-config, which is not below @kraft/records',
      ]),
    );
  });

  it('lets only raft src/node import the transport', () => {
    const tree = repository({ 'packages/raft/src/io/driver.ts': importOf('transport-tcp') });
    expect(sortedProblems(tree)).toEqual(
      sorted(['packages/raft/src/io/driver.ts: only src/node may import @kraft/transport-tcp']),
    );
  });

  it('keeps the log out of the raft core (only io, node and testing wire it)', () => {
    const tree = repository({ 'packages/raft/src/states/leader.ts': importOf('log') });
    expect(sortedProblems(tree)).toEqual(
      sorted([
        'packages/raft/src/states/leader.ts: the raft core must not use @kraft/log (only src/io, src/node and src/testing may; the core sees the RaftLog port)',
      ]),
    );
  });

  it('keeps @kraft/raft/internal inside packages/raft, in tests too', () => {
    const tree = repository({
      'packages/raft/src/testing/cluster.ts': importOf('raft/internal'),
      'packages/metadata/src/loader.test.ts': importOf('raft/internal'),
      'packages/metadata/test/support.ts': importOf('raft/internal'),
      'apps/perf/src/main.ts': importOf('raft/internal'),
    });
    expect(sortedProblems(tree)).toEqual(
      sorted([
        'packages/metadata/src/loader.test.ts: imports @kraft/raft/internal, which only packages/raft may use',
        'packages/metadata/test/support.ts: imports @kraft/raft/internal, which only packages/raft may use',
        'apps/perf/src/main.ts: imports @kraft/raft/internal, which only packages/raft may use',
      ]),
    );
  });

  it('keeps @kraft/raft/test-kit out of production code', () => {
    const tree = repository({
      'packages/raft/src/node/raft-node.ts': importOf('raft/test-kit'),
      'packages/metadata/src/loader.ts': importOf('raft/test-kit'),
      'apps/perf/src/main.ts': importOf('raft/test-kit'),
    });
    expect(sortedProblems(tree)).toEqual(
      sorted([
        'packages/raft/src/node/raft-node.ts: imports @kraft/raft/test-kit, which only tests and benchmarks may use',
        'packages/metadata/src/loader.ts: imports @kraft/raft/test-kit, which only tests and benchmarks may use',
        'apps/perf/src/main.ts: imports @kraft/raft/test-kit, which only tests and benchmarks may use',
      ]),
    );
  });
});
