// A real publish and install: every published @kraft package is built from the tree, packed by
// pnpm, published at a prerelease version to a local verdaccio (no uplinks), and installed with
// npm into a project outside the workspace, which imports every entry point, type-checks a
// TypeScript consumer under moduleResolution node16 and bundler, and runs it.
import { execFile, execFileSync } from 'node:child_process';
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRegistry, startLocalRegistry } from '../src/local-registry.js';
import { stageForMirror, thirdPartyClosure } from '../src/mirror.js';
import { packPackage } from '../src/pack.js';
import { publishedSubpaths } from '../src/package-rules.js';
import { readmeQuickStart } from '../src/readme-example.js';
import { buildPublishedPackages, publishedPackages, readJson, repositoryRoot } from '../src/workspace.js';

const execFileAsync = promisify(execFile);

/** A version no real release uses, so nothing here can be mistaken for one. */
const PRERELEASE_SUFFIX = '-registry-test.0';
const PUBLISH_CONCURRENCY = 3;
/**
 * Optional peer dependencies of the `./testing` entry points (their fast-check arbitraries); a
 * user who imports those installs them, and so does the consumer here.
 */
const OPTIONAL_PEERS = ['fast-check'];
const consumerFixtures = join(import.meta.dirname, '..', 'consumer');
const typescriptCompiler = join(repositoryRoot, 'node_modules', 'typescript', 'bin', 'tsc');

/** Runs tsc on the consumer; a failure carries tsc's own diagnostics, not only its exit code. */
function compileConsumer(project: string): void {
  try {
    execFileSync(process.execPath, [typescriptCompiler, '-p', project], {
      cwd: consumerDirectory,
      encoding: 'utf8',
    });
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new Error(`tsc -p ${project} failed:\n${stdout}${stderr}`);
  }
}

const packages = publishedPackages();
const workDirectory = mkdtempSync(join(tmpdir(), 'kraft-publish-'));
const consumerDirectory = join(workDirectory, 'consumer');
let registry: LocalRegistry | undefined;
let prereleaseVersion = '';

function registryOrThrow(): LocalRegistry {
  if (registry === undefined) throw new Error('the local registry did not start');
  return registry;
}

async function inBatches<T>(items: readonly T[], run: (item: T) => Promise<unknown>): Promise<void> {
  for (let start = 0; start < items.length; start += PUBLISH_CONCURRENCY) {
    await Promise.all(items.slice(start, start + PUBLISH_CONCURRENCY).map(run));
  }
}

/** The packed manifest at the prerelease version, its @kraft dependencies pinned to it too. */
function rewriteToPrerelease(manifestPath: string): void {
  const manifest = readJson<{ version: string; dependencies?: Record<string, string> }>(manifestPath);
  manifest.version = prereleaseVersion;
  for (const name of Object.keys(manifest.dependencies ?? {})) {
    if (name.startsWith('@kraft/') && manifest.dependencies !== undefined) {
      manifest.dependencies[name] = prereleaseVersion;
    }
  }
  writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
}

async function publishThirdParty(local: LocalRegistry): Promise<void> {
  const closure = thirdPartyClosure(
    packages.map(({ path }) => path),
    { from: repositoryRoot, names: ['@types/node', ...OPTIONAL_PEERS] },
  );
  const mirrored = new Set(closure.map(({ name }) => name));
  await inBatches(closure, async (installed) => {
    const stagingPath = join(workDirectory, 'mirror', `${installed.name}@${installed.version}`, 'package');
    stageForMirror(installed, stagingPath, mirrored);
    await local.putPackage(stagingPath);
  });
}

async function publishKraftPackages(local: LocalRegistry): Promise<void> {
  const packDirectory = join(workDirectory, 'packed');
  mkdirSync(packDirectory, { recursive: true });
  const packed = packages.map(({ path }) => packPackage(path, packDirectory));
  await inBatches(packed, async ({ unpackedPath }) => {
    rewriteToPrerelease(join(unpackedPath, 'package.json'));
    await local.npm(['publish', unpackedPath, '--tag', 'next'], workDirectory);
  });
}

/** The root's pinned version of a dev dependency the consumer installs beside the packages. */
function rootDevDependencyVersion(name: string): string {
  const manifest = readJson<{ devDependencies: Record<string, string> }>(
    join(repositoryRoot, 'package.json'),
  );
  return String(manifest.devDependencies[name]);
}

beforeAll(async () => {
  buildPublishedPackages();
  const version = packages[0]?.manifest.version ?? '0.0.0';
  prereleaseVersion = `${version.replace(/-.*$/, '')}${PRERELEASE_SUFFIX}`;
  registry = await startLocalRegistry();
  await publishThirdParty(registry);
  await publishKraftPackages(registry);
  mkdirSync(consumerDirectory);
  await registry.npm(['init', '-y'], consumerDirectory);
  await registry.npm(['pkg', 'set', 'type=module'], consumerDirectory);
  const specs = packages.map(({ name }) => `${name}@${prereleaseVersion}`);
  const extras = ['@types/node', ...OPTIONAL_PEERS].map(
    (name) => `${name}@${rootDevDependencyVersion(name)}`,
  );
  await registry.npm(['install', ...specs, ...extras], consumerDirectory);
  copyFileSync(join(consumerFixtures, 'program.ts'), join(consumerDirectory, 'program.ts'));
  for (const { name, path } of packages) {
    const { example } = readmeQuickStart(readFileSync(join(path, 'README.md'), 'utf8'), name);
    writeFileSync(join(consumerDirectory, readmeExampleFile(name)), example);
  }
}, 600_000);

/** `@kraft/raft` → `readme-raft.ts` */
function readmeExampleFile(name: string): string {
  return `readme-${name.split('/').at(-1)}.ts`;
}

afterAll(async () => {
  await registry?.stop();
  rmSync(workDirectory, { recursive: true, force: true });
}, 60_000);

describe('the packages published to a local registry', () => {
  it('publishes every package at the prerelease version and nothing reaches another registry', async () => {
    const local = registryOrThrow();
    for (const { name } of packages) {
      const response = await fetch(`${local.url}${name.replace('/', '%2f')}`);
      const document = (await response.json()) as { versions?: Record<string, unknown> };
      expect(Object.keys(document.versions ?? {}), name).toEqual([prereleaseVersion]);
    }
    const lock = readFileSync(join(consumerDirectory, 'package-lock.json'), 'utf8');
    const resolved = [...lock.matchAll(/"resolved": "([^"]+)"/g)].map((match) => match[1]);
    expect(resolved.length).toBeGreaterThan(packages.length);
    expect(resolved.filter((url) => !url?.startsWith(local.url))).toEqual([]);
  });

  it.each(packages.map(({ name, manifest }) => [name, manifest] as const))(
    'imports every entry point of %s from the installed package',
    (name, manifest) => {
      const subpaths = publishedSubpaths(manifest.exports);
      const specifiers = subpaths.map((subpath) => `${name}${subpath.slice(1)}`);
      const script = `for (const s of ${JSON.stringify(specifiers)}) { const m = await import(s); if (Object.keys(m).length === 0) throw new Error(s + ' exports nothing'); }`;
      execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: consumerDirectory });
    },
  );

  it('type-checks the consumer and the README examples with moduleResolution bundler', () => {
    copyFileSync(
      join(consumerFixtures, 'tsconfig.bundler.json'),
      join(consumerDirectory, 'tsconfig.bundler.json'),
    );
    compileConsumer('tsconfig.bundler.json');
  });

  it('compiles the consumer with moduleResolution node16, runs it and commits on a single-node quorum', () => {
    copyFileSync(join(consumerFixtures, 'tsconfig.node16.json'), join(consumerDirectory, 'tsconfig.json'));
    compileConsumer('tsconfig.json');
    const output = execFileSync(process.execPath, [join('dist', 'program.js')], {
      cwd: consumerDirectory,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(JSON.parse(output)).toEqual({
      voteClusterId: 'consumer-cluster',
      batchValues: ['first', 'second'],
      plainLogEndOffset: 0,
      metadataTopicName: 'events',
      quorum: {
        role: 'leader',
        epoch: expect.any(Number),
        highWatermark: expect.any(Number),
        committed: ['hello from a consumer'],
      },
    });
  });

  it.each(packages.map(({ name, path }) => [name, path] as const))(
    "runs the first example of %s's README, installed as its install line says",
    (name, path) => {
      const { installedPackages } = readmeQuickStart(readFileSync(join(path, 'README.md'), 'utf8'), name);
      for (const installed of installedPackages) {
        expect(
          existsSync(join(consumerDirectory, 'node_modules', installed, 'package.json')),
          installed,
        ).toBe(true);
      }
      // Compiled by the node16 test above; the examples' temporary directories go in the consumer's.
      const temporaryDirectory = join(consumerDirectory, 'tmp');
      mkdirSync(temporaryDirectory, { recursive: true });
      const output = execFileSync(
        process.execPath,
        [join('dist', readmeExampleFile(name).replace(/\.ts$/, '.js'))],
        {
          cwd: consumerDirectory,
          encoding: 'utf8',
          timeout: 60_000,
          env: { ...process.env, TMPDIR: temporaryDirectory },
        },
      );
      expect(output.trim()).not.toBe('');
    },
  );

  // issue 16: the example is built from the installed packages, as a user copying it would.
  it('compiles the kv-store example against the installed @kraft/raft and runs it on three processes', () => {
    const exampleDirectory = join(consumerDirectory, 'kv-store');
    for (const folder of ['src', 'scripts']) {
      cpSync(join(repositoryRoot, 'examples', 'kv-store', folder), join(exampleDirectory, folder), {
        recursive: true,
      });
    }
    const tsconfig = JSON.parse(readFileSync(join(consumerFixtures, 'tsconfig.node16.json'), 'utf8'));
    tsconfig.include = ['src/*.ts', 'scripts/*.ts'];
    writeFileSync(join(exampleDirectory, 'tsconfig.json'), JSON.stringify(tsconfig));
    compileConsumer(join(exampleDirectory, 'tsconfig.json'));
    const output = execFileSync(process.execPath, [join(exampleDirectory, 'dist', 'scripts', 'smoke.js')], {
      cwd: exampleDirectory,
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(JSON.parse(output)).toEqual({
      put: 204,
      cas: { swapped: true },
      get: { status: 200, value: 'world' },
    });
  }, 180_000);

  // Last, since it publishes the tree's own versions: `pnpm release` (build, then changesets'
  // publish, which runs pnpm publish per package) aimed at the local registry, without git tags.
  it('publishes every package at its version with pnpm release', async () => {
    const local = registryOrThrow();
    await execFileAsync('pnpm', ['release', '--no-git-tag'], {
      cwd: repositoryRoot,
      env: local.environment,
      timeout: 300_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    for (const { name, manifest } of packages) {
      const response = await fetch(`${local.url}${name.replace('/', '%2f')}`);
      const document = (await response.json()) as { 'dist-tags'?: Record<string, string> };
      expect(document['dist-tags']?.['latest'], name).toBe(manifest.version);
    }
  }, 300_000);
});
