import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LogDirectoryLock, parseJavaProperties } from '@kraft/log';
import { Uuid } from '@kraft/protocol';
import { NodeFileSystem } from '@kraft/records';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  BOOTSTRAP_CHECKPOINT_FILE,
  bootstrapCheckpointBytes,
  readBootstrapCheckpoint,
} from './bootstrap-checkpoint.js';
import { parseDynamicVoters } from './dynamic-voters.js';
import { REFUSED_EXIT_CODE, runStorageTool } from './run-storage-tool.js';

const NOW_MS = 1_700_000_000_000;
const CLUSTER_ID = 'q1Sh-9_ISia_ZGc4iNTUBQ';
const DIRECTORY_B8TR = 'b8tRS7h4TJ2Vt43Dp85v2A';
const DIRECTORY_J8AA = 'J8aAPcfLQt2bqs1JT_rMgQ';
const DIRECTORY_NKIJ = 'Nkij_D9XRiYKNb41SiJo7Q';
const PARTITION = '__raft_performance_test-0';

interface ToolRun {
  readonly code: number;
  readonly stdout: string[];
  readonly stderr: string;
}

let root: string;
let drawnDirectoryIds: Uuid[];
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'kraft-storage-tool-'));
  drawnDirectoryIds = [Uuid.fromString(DIRECTORY_NKIJ)];
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function tool(...argv: string[]): ToolRun {
  const stdout: string[] = [];
  let stderr = '';
  const code = runStorageTool(argv, {
    stdoutLine: (line) => stdout.push(line),
    stderrText: (text) => {
      stderr += text;
    },
    nowMs: () => NOW_MS,
    // The ids the test planned, then random ones (a refused --standalone still draws one, as Kafka's).
    newDirectoryId: () => drawnDirectoryIds.shift() ?? Uuid.randomDirectoryId(),
  });
  return { code, stdout, stderr };
}

const logDirectory = (name = 'logs'): string => join(root, name);

/** A config file in the temp dir: a static single-voter quorum unless `lines` say otherwise. */
function config(lines: Record<string, string>, name = 'server.properties'): string {
  const properties: Record<string, string> = {
    'node.id': '1',
    listeners: 'CONTROLLER://localhost:9093',
    'listener.security.protocol.map': 'CONTROLLER:PLAINTEXT',
    'controller.listener.names': 'CONTROLLER',
    'controller.quorum.voters': '1@localhost:9093',
    'log.dirs': logDirectory(),
    ...lines,
  };
  const path = join(root, name);
  writeFileSync(
    path,
    Object.entries(properties)
      .filter(([, value]) => value !== '<unset>')
      .map(([key, value]) => `${key}=${value}`)
      .join('\n'),
  );
  return path;
}

/** A dynamic quorum's controller: bootstrap servers instead of static voters. */
const dynamicConfig = (lines: Record<string, string> = {}): string =>
  config({
    'controller.quorum.voters': '<unset>',
    'controller.quorum.bootstrap.servers': 'localhost:9093',
    ...lines,
  });

function metaProperties(directory = logDirectory()): Map<string, string> {
  return parseJavaProperties(readFileSync(join(directory, 'meta.properties'), 'latin1'));
}

/** Every file under `directory`, relative, sorted (an absent directory has none). */
function filesUnder(directory: string): string[] {
  if (!existsSync(directory)) return [];
  return readdirSync(directory, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(directory.length + 1))
    .sort();
}

describe('kraft-storage.sh command line', () => {
  it.each([
    [[], 'error: missing command'],
    [['forma'], "error: unknown command 'forma'"],
    [['format', '--cluster-id', CLUSTER_ID], "required option '-c, --config <file>' not specified"],
    [['format', '--config', 'x'], "required option '-t, --cluster-id <id>' not specified"],
    [['format', '-c', 'x', '-t', CLUSTER_ID, '--cluster'], "unknown option '--cluster'"],
    [['format', '-c', 'x', '-t', CLUSTER_ID, 'extra'], 'too many arguments'],
    [['info'], "required option '-c, --config <file>' not specified"],
    [['random-uuid', 'extra'], 'too many arguments'],
  ])('exits 2 with the usage for %j', (argv, message) => {
    const run = tool(...argv);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(message);
    expect(run.stderr).toContain('Usage: kraft-storage.sh');
    expect(run.stdout).toEqual([]);
  });

  it.each([
    [
      ['--standalone', '--initial-controllers', `1@h:1:${DIRECTORY_B8TR}`],
      "'--initial-controllers' cannot be used with option '--standalone'",
    ],
    [
      ['-I', `1@h:1:${DIRECTORY_B8TR}`, '-N'],
      "'--no-initial-controllers' cannot be used with option '--initial-controllers'",
    ],
    [['-N', '-s'], "'--standalone' cannot be used with option '--no-initial-controllers'"],
  ])("refuses Kafka's mutually exclusive quorum flags together: %j", (flags, message) => {
    const path = dynamicConfig();
    const run = tool('format', '--config', path, '--cluster-id', CLUSTER_ID, ...flags);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(message);
    expect(existsSync(logDirectory())).toBe(false);
  });

  it("refuses a bad --initial-controllers with Kafka's reason, exit 2", () => {
    const run = tool(
      'format',
      '-c',
      dynamicConfig(),
      '-t',
      CLUSTER_ID,
      '--initial-controllers',
      '1@localhost:9093',
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      "error: option '--initial-controllers': No colon following port could be found. (in '1@localhost:9093')",
    );
    expect(existsSync(logDirectory())).toBe(false);
  });

  it('prints the usage on stdout for --help, also of a command', () => {
    const top = tool('--help');
    expect(top.code).toBe(0);
    expect(top.stdout.join('\n')).toMatch(/format[\s\S]*info[\s\S]*random-uuid/);
    const format = tool('format', '--help');
    expect(format.code).toBe(0);
    expect(format.stdout.join('\n')).toContain('-I, --initial-controllers <list>');
  });

  it('random-uuid prints a fresh 22-character Kafka Uuid that is no flag', () => {
    const texts = Array.from({ length: 20 }, () => tool('random-uuid'));
    for (const run of texts) {
      expect(run.code).toBe(0);
      const [text] = run.stdout as [string];
      expect(text).toMatch(/^[A-Za-z0-9_][A-Za-z0-9_-]{21}$/);
      expect(Uuid.fromString(text).toString()).toBe(text);
    }
    expect(new Set(texts.map((run) => run.stdout[0])).size).toBe(20);
  });
});

describe('kraft-storage.sh format: static quorum (kraft.version 0)', () => {
  it('writes meta.properties only: version 1, node.id, cluster.id and a fresh directory.id', () => {
    const run = tool('format', '--config', config({}), '--cluster-id', CLUSTER_ID);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toEqual([`Formatting metadata directory ${logDirectory()} with kraft.version 0.`]);
    expect(filesUnder(logDirectory())).toEqual(['.lock', 'meta.properties']);
    expect(Object.fromEntries(metaProperties())).toEqual({
      version: '1',
      'node.id': '1',
      'cluster.id': CLUSTER_ID,
      'directory.id': DIRECTORY_NKIJ,
    });
    expect(readFileSync(join(logDirectory(), 'meta.properties'), 'latin1')).toMatch(
      /^#\n#Tue Nov 14 22:13:20 UTC 2023\n/,
    );
  });

  it('takes metadata.log.dir over log.dirs, and a cluster id starting with a dash', () => {
    const path = config({ 'metadata.log.dir': logDirectory('metadata') });
    const run = tool('format', '-c', path, '-t', '-dashed-id');
    expect(run.code).toBe(0);
    expect(metaProperties(logDirectory('metadata')).get('cluster.id')).toBe('-dashed-id');
    expect(existsSync(logDirectory())).toBe(false);
  });

  it('accepts --no-initial-controllers with static voters: the same meta.properties only', () => {
    const run = tool('format', '-c', config({}), '-t', CLUSTER_ID, '--no-initial-controllers');
    expect(run.code).toBe(0);
    expect(run.stdout[0]).toContain('with kraft.version 0.');
    expect(filesUnder(logDirectory())).toEqual(['.lock', 'meta.properties']);
  });

  it.each([['--standalone'], ['--initial-controllers', `1@localhost:9093:${DIRECTORY_B8TR}`]])(
    'refuses %s when controller.quorum.voters is set, as Kafka, before writing',
    (...flags) => {
      const run = tool('format', '-c', config({}), '-t', CLUSTER_ID, ...flags);
      expect(run.code).toBe(REFUSED_EXIT_CODE);
      expect(run.stderr).toBe(
        'kraft-storage: You cannot specify controller.quorum.voters and format the node with --initial-controllers or ' +
          '--standalone. If you want to use dynamic quorum, please remove controller.quorum.voters and specify ' +
          'controller.quorum.bootstrap.servers instead.',
      );
      expect(existsSync(logDirectory())).toBe(false);
    },
  );
});

describe('kraft-storage.sh format: dynamic quorum (kraft.version 1)', () => {
  it('--standalone: this node alone, its fresh directory id in meta.properties and in the checkpoint', () => {
    const run = tool('format', '-c', dynamicConfig(), '-t', CLUSTER_ID, '--standalone');
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const checkpointPath = join(logDirectory(), PARTITION, BOOTSTRAP_CHECKPOINT_FILE);
    expect(run.stdout).toEqual([
      `Formatting dynamic metadata voter directory ${logDirectory()} with kraft.version 1.`,
      `Wrote the bootstrap checkpoint ${checkpointPath} (Kafka's controllers keep theirs in __cluster_metadata-0).`,
    ]);
    expect(filesUnder(logDirectory())).toEqual([
      '.lock',
      `${PARTITION}/${BOOTSTRAP_CHECKPOINT_FILE}`,
      'meta.properties',
    ]);
    expect(metaProperties().get('directory.id')).toBe(DIRECTORY_NKIJ);
    const expected = bootstrapCheckpointBytes({
      voters: parseDynamicVoters(`1@localhost:9093:${DIRECTORY_NKIJ}`),
      listenerName: 'CONTROLLER',
      timestampMs: NOW_MS,
    });
    expect(readFileSync(checkpointPath).toString('hex')).toBe(expected.toString('hex'));
  });

  it("--standalone on a listener without a host writes Kafka's localhost", () => {
    const run = tool(
      'format',
      '-c',
      dynamicConfig({ listeners: 'CONTROLLER://:9093' }),
      '-t',
      CLUSTER_ID,
      '-s',
    );
    expect(run.code).toBe(0);
    const checkpoint = readBootstrapCheckpoint(
      new NodeFileSystem(),
      join(logDirectory(), PARTITION, BOOTSTRAP_CHECKPOINT_FILE),
    );
    expect(checkpoint?.voters?.[0]?.endpoints).toEqual([
      { name: 'CONTROLLER', host: 'localhost', port: 9093 },
    ]);
  });

  it('--initial-controllers: every voter in the checkpoint, this node taking the directory id of its entry', () => {
    const list = `3@c:9095:${DIRECTORY_J8AA},1@a:9093:${DIRECTORY_B8TR},2@b:9094:${DIRECTORY_NKIJ}`;
    const run = tool('format', '-c', dynamicConfig(), '-t', CLUSTER_ID, '--initial-controllers', list);
    expect(run.code).toBe(0);
    expect(metaProperties().get('directory.id')).toBe(DIRECTORY_B8TR);
    expect(drawnDirectoryIds).toHaveLength(1); // none drawn
    const checkpoint = readBootstrapCheckpoint(
      new NodeFileSystem(),
      join(logDirectory(), PARTITION, BOOTSTRAP_CHECKPOINT_FILE),
    );
    expect(checkpoint?.kraftVersion).toBe(1);
    expect(
      checkpoint?.voters?.map((voter) => [voter.voterId, voter.voterDirectoryId.toString(), voter.endpoints]),
    ).toEqual([
      [1, DIRECTORY_B8TR, [{ name: 'CONTROLLER', host: 'a', port: 9093 }]],
      [2, DIRECTORY_NKIJ, [{ name: 'CONTROLLER', host: 'b', port: 9094 }]],
      [3, DIRECTORY_J8AA, [{ name: 'CONTROLLER', host: 'c', port: 9095 }]],
    ]);
  });

  it('--initial-controllers without this node: a non-voter with a directory id of its own, as Kafka', () => {
    const list = `2@b:9094:${DIRECTORY_B8TR},3@c:9095:${DIRECTORY_J8AA}`;
    const run = tool('format', '-c', dynamicConfig(), '-t', CLUSTER_ID, '--initial-controllers', list);
    expect(run.code).toBe(0);
    expect(run.stdout[0]).toBe(`Formatting metadata directory ${logDirectory()} with kraft.version 1.`);
    const directoryId = metaProperties().get('directory.id');
    expect([DIRECTORY_B8TR, DIRECTORY_J8AA]).not.toContain(directoryId);
    expect(directoryId).toBe(DIRECTORY_NKIJ); // the one drawn for it
    expect(drawnDirectoryIds).toHaveLength(0);
    const checkpoint = readBootstrapCheckpoint(
      new NodeFileSystem(),
      join(logDirectory(), PARTITION, BOOTSTRAP_CHECKPOINT_FILE),
    );
    expect(checkpoint?.voters?.map((voter) => voter.voterId)).toEqual([2, 3]);
  });

  it('--no-initial-controllers: meta.properties only, for a node that joins the quorum later', () => {
    const run = tool('format', '-c', dynamicConfig(), '-t', CLUSTER_ID, '-N');
    expect(run.code).toBe(0);
    expect(run.stdout).toEqual([`Formatting metadata directory ${logDirectory()} with kraft.version 1.`]);
    expect(filesUnder(logDirectory())).toEqual(['.lock', 'meta.properties']);
  });

  it.each([
    [
      'no quorum flag on a controller without static voters',
      () => dynamicConfig(),
      [],
      'Because controller.quorum.voters is not set on this controller, you must specify one of the following: --standalone, --initial-controllers, or --no-initial-controllers.',
    ],
    [
      '--standalone on a broker',
      () => dynamicConfig({ 'process.roles': 'broker' }),
      ['--standalone'],
      'You can only use --standalone on a controller.',
    ],
    [
      'a config for a legacy (ZooKeeper) cluster',
      () => config({ 'process.roles': '' }),
      [],
      'The kafka configuration file appears to be for a legacy cluster. Formatting is only supported for clusters in KRaft mode.',
    ],
  ])('refuses %s, exit 1, nothing written', (_what, makeConfig, flags, message) => {
    const run = tool('format', '-c', makeConfig(), '-t', CLUSTER_ID, ...flags);
    expect(run.code).toBe(REFUSED_EXIT_CODE);
    expect(run.stderr).toContain(`kraft-storage: ${message}`);
    expect(run.stdout).toEqual([]);
    expect(existsSync(logDirectory())).toBe(false);
  });

  it('a broker without static voters needs no flag (kraft.version 1, meta.properties only)', () => {
    const run = tool('format', '-c', dynamicConfig({ 'process.roles': 'broker' }), '-t', CLUSTER_ID);
    expect(run.code).toBe(0);
    expect(filesUnder(logDirectory())).toEqual(['.lock', 'meta.properties']);
  });
});

describe('kraft-storage.sh format on a formatted directory', () => {
  function formatOnce(): { path: string; before: Buffer } {
    const path = dynamicConfig();
    expect(tool('format', '-c', path, '-t', CLUSTER_ID, '-s').code).toBe(0);
    return { path, before: readFileSync(join(logDirectory(), 'meta.properties')) };
  }

  function expectUnchanged(before: Buffer): void {
    expect(readFileSync(join(logDirectory(), 'meta.properties'))).toEqual(before);
    expect(filesUnder(logDirectory())).toEqual([
      '.lock',
      `${PARTITION}/${BOOTSTRAP_CHECKPOINT_FILE}`,
      'meta.properties',
    ]);
  }

  it("refuses to reformat it without --ignore-formatted, with Kafka's message", () => {
    const { path, before } = formatOnce();
    const run = tool('format', '-c', path, '-t', CLUSTER_ID, '-s');
    expect(run.code).toBe(REFUSED_EXIT_CODE);
    expect(run.stderr).toBe(
      `kraft-storage: Log directory ${logDirectory()} is already formatted. Use --ignore-formatted to ignore this directory and format the others.`,
    );
    expectUnchanged(before);
  });

  it('does nothing with --ignore-formatted and says so, exit 0', () => {
    const { path, before } = formatOnce();
    const run = tool('format', '-c', path, '-t', CLUSTER_ID, '--standalone', '--ignore-formatted');
    expect(run.code).toBe(0);
    expect(run.stdout).toEqual(['All of the log directories are already formatted.']);
    expectUnchanged(before);
  });

  it('refuses another cluster id even with --ignore-formatted', () => {
    const { path, before } = formatOnce();
    const run = tool('format', '-c', path, '-t', 'another-cluster', '-s', '-g');
    expect(run.code).toBe(REFUSED_EXIT_CODE);
    expect(run.stderr).toBe(
      `kraft-storage: Invalid cluster.id in: ${join(logDirectory(), 'meta.properties')}. Expected another-cluster, but read ${CLUSTER_ID}`,
    );
    expectUnchanged(before);
  });

  it('refuses another node id even with --ignore-formatted', () => {
    const { before } = formatOnce();
    const other = dynamicConfig({ 'node.id': '2' });
    const run = tool('format', '-c', other, '-t', CLUSTER_ID, '-N', '-g');
    expect(run.code).toBe(REFUSED_EXIT_CODE);
    expect(run.stderr).toContain(
      `kraft-storage: Stored node id 1 doesn't match previous node id 2 in ${join(logDirectory(), 'meta.properties')}. If you moved your data`,
    );
    expectUnchanged(before);
  });

  it('refuses a meta.properties it cannot read, and one with a reserved directory id', () => {
    mkdirSync(logDirectory());
    writeFileSync(join(logDirectory(), 'meta.properties'), 'version=7\n');
    const unreadable = tool('format', '-c', config({}), '-t', CLUSTER_ID, '-g');
    expect(unreadable.code).toBe(REFUSED_EXIT_CODE);
    expect(unreadable.stderr).toBe(
      `kraft-storage: I/O error trying to read log directory ${logDirectory()} (meta.properties: unsupported version '7'). No available log directories to format.`,
    );
    writeFileSync(
      join(logDirectory(), 'meta.properties'),
      `version=1\nnode.id=1\ncluster.id=${CLUSTER_ID}\ndirectory.id=AAAAAAAAAAAAAAAAAAAAAQ\n`,
    );
    const reserved = tool('format', '-c', config({}), '-t', CLUSTER_ID, '-g');
    expect(reserved.stderr).toBe(
      `kraft-storage: Invalid reserved directory ID AAAAAAAAAAAAAAAAAAAAAQ found in ${logDirectory()}`,
    );
  });

  it('refuses a directory another process (a running server) holds the lock of', () => {
    mkdirSync(logDirectory());
    const lock = LogDirectoryLock.acquire(new NodeFileSystem(), logDirectory());
    try {
      const run = tool('format', '-c', config({}), '-t', CLUSTER_ID);
      expect(run.code).toBe(REFUSED_EXIT_CODE);
      expect(run.stderr).toContain(logDirectory());
      expect(run.stderr).toMatch(/lock/i);
      expect(filesUnder(logDirectory())).toEqual(['.lock']);
    } finally {
      lock.release();
    }
  });

  it('refuses an unreadable config with its ConfigError, exit 1', () => {
    const run = tool('format', '-c', join(root, 'missing.properties'), '-t', CLUSTER_ID);
    expect(run.code).toBe(REFUSED_EXIT_CODE);
    expect(run.stderr).toContain('invalid value');
    expect(run.stderr).toContain('expected a readable properties file');
  });
});

describe('kraft-storage.sh info', () => {
  it('prints the directory, its meta.properties and its bootstrap checkpoint, exit 0', () => {
    const path = dynamicConfig();
    tool('format', '-c', path, '-t', CLUSTER_ID, '-I', `1@localhost:9093:${DIRECTORY_B8TR}`);
    const run = tool('info', '-c', path);
    expect(run.code).toBe(0);
    expect(run.stdout).toEqual([
      'Found log directory:',
      `  ${logDirectory()}`,
      '',
      `Found metadata: {cluster.id=${CLUSTER_ID}, directory.id=${DIRECTORY_B8TR}, node.id=1, version=1}`,
      '',
      `Found bootstrap checkpoint: ${join(logDirectory(), PARTITION, BOOTSTRAP_CHECKPOINT_FILE)}`,
      '  kraft.version: 1',
      `  voter 1: directory.id=${DIRECTORY_B8TR}, endpoints=[CONTROLLER://localhost:9093], kraft.version=[0, 1]`,
      '  (the test server runs kraft.version 0 only: it refuses to start on this dir)',
      '',
    ]);
  });

  it('says a static quorum dir has no bootstrap checkpoint', () => {
    const path = config({});
    tool('format', '-c', path, '-t', CLUSTER_ID);
    const run = tool('info', '-c', path);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      'No bootstrap checkpoint (no dynamic quorum was written when the dir was formatted).',
    );
  });

  it("lists Kafka's problems with exit 1: missing, not a directory, not formatted, legacy, unreadable", () => {
    const path = config({});
    expect(tool('info', '-c', path).stdout).toEqual([
      'Found problem:',
      `  ${logDirectory()} does not exist`,
      '',
    ]);
    writeFileSync(logDirectory(), 'a file');
    expect(tool('info', '-c', path).stdout).toEqual([
      'Found problem:',
      `  ${logDirectory()} is not a directory`,
      '',
    ]);
    rmSync(logDirectory());
    mkdirSync(logDirectory());
    const unformatted = tool('info', '-c', path);
    expect(unformatted.code).toBe(1);
    expect(unformatted.stdout).toEqual([
      'Found log directory:',
      `  ${logDirectory()}`,
      '',
      'Found problem:',
      `  ${logDirectory()} is not formatted.`,
      '',
    ]);
    writeFileSync(join(logDirectory(), 'meta.properties'), 'version=0\nbroker.id=1\ncluster.id=old\n');
    const legacy = tool('info', '-c', path);
    expect(legacy.code).toBe(1);
    expect(legacy.stdout).toContain('Found metadata: {broker.id=1, cluster.id=old, version=0}');
    expect(legacy.stdout).toContain(
      '  The kafka configuration file appears to be for a cluster in KRaft mode, but the directories are formatted for legacy mode.',
    );
    writeFileSync(join(logDirectory(), 'meta.properties'), 'version=1\n');
    mkdirSync(join(logDirectory(), PARTITION));
    writeFileSync(join(logDirectory(), PARTITION, BOOTSTRAP_CHECKPOINT_FILE), Buffer.alloc(10));
    const broken = tool('info', '-c', path);
    expect(broken.code).toBe(1);
    expect(broken.stdout).toEqual([
      'Found log directory:',
      `  ${logDirectory()}`,
      '',
      'Found problems:',
      `  Error loading ${join(logDirectory(), 'meta.properties')}: meta.properties: version 1 requires node.id`,
      `  Error loading ${join(logDirectory(), PARTITION, BOOTSTRAP_CHECKPOINT_FILE)}: 10 trailing bytes do not form a batch (batch at offset -1, position 0)`,
      '',
    ]);
  });
});
