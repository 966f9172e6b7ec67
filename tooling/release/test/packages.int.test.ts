// Every published package as a registry user gets it: packed by pnpm from a fresh build, its
// manifest and tarball held to the rules of src/package-rules.ts, then publint --strict and
// attw (ESM-only profile) on the tarball itself.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { publint } from 'publint';
import { formatMessage } from 'publint/utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PackedPackage, packPackage } from '../src/pack.js';
import { manifestProblems, tarballProblems, workspaceOnlySubpaths } from '../src/package-rules.js';
import {
  buildPublishedPackages,
  publishedPackages,
  repositoryRoot,
  workspaceExpectations,
} from '../src/workspace.js';

const packages = publishedPackages();
const expectations = workspaceExpectations();
const packDirectory = mkdtempSync(join(tmpdir(), 'kraft-pack-'));
const packed = new Map<string, PackedPackage>();

beforeAll(() => {
  buildPublishedPackages();
  for (const workspacePackage of packages) {
    packed.set(workspacePackage.name, packPackage(workspacePackage.path, packDirectory));
  }
}, 300_000);

afterAll(() => {
  rmSync(packDirectory, { recursive: true, force: true });
});

function packedOrThrow(name: string): PackedPackage {
  const result = packed.get(name);
  if (result === undefined) throw new Error(`${name} was not packed`);
  return result;
}

it('finds the published packages under packages/', () => {
  expect(packages.map(({ name }) => name)).toEqual(
    expect.arrayContaining(['@kraft/protocol', '@kraft/records', '@kraft/log', '@kraft/raft']),
  );
  expect(expectations.repositoryUrl).toMatch(/^git\+https:\/\//);
});

it('ships the same LICENSE as the repository', () => {
  const license = readFileSync(join(repositoryRoot, 'LICENSE'), 'utf8');
  for (const { name } of packages) {
    expect(readFileSync(join(packedOrThrow(name).unpackedPath, 'LICENSE'), 'utf8'), name).toBe(license);
  }
});

describe.each(packages.map((workspacePackage) => [workspacePackage.name, workspacePackage] as const))(
  '%s',
  (name, workspacePackage) => {
    it('has the manifest fields a registry user expects', () => {
      expect(manifestProblems(workspacePackage.manifest, workspacePackage.directory, expectations)).toEqual(
        [],
      );
    });

    it('packs dist, src without tests, README, LICENSE and resolvable source maps', () => {
      const { contents } = packedOrThrow(name);
      expect(tarballProblems(contents)).toEqual([]);
      expect(JSON.stringify(contents.manifest)).not.toContain('workspace:');
    });

    it('passes publint --strict on the tarball', async () => {
      const tarball = readFileSync(packedOrThrow(name).tarballPath);
      const { messages, pkg } = await publint({
        pack: { tarball: tarball.buffer.slice(tarball.byteOffset, tarball.byteOffset + tarball.byteLength) },
        strict: true,
      });
      expect(messages.map((message) => formatMessage(message, pkg, { color: false }))).toEqual([]);
    });

    it('passes attw with the ESM-only profile on the tarball', () => {
      // attw exits non-zero on a problem and prints its table; the assertion shows that table.
      let report = '';
      // attw checks what a registry user can import; a workspace-only entry resolves nowhere else.
      const workspaceOnly = workspaceOnlySubpaths(workspacePackage.manifest.exports);
      const exclusions = workspaceOnly.length === 0 ? [] : ['--exclude-entrypoints', ...workspaceOnly];
      try {
        execFileSync(
          'pnpm',
          ['exec', 'attw', packedOrThrow(name).tarballPath, '--profile', 'esm-only', ...exclusions],
          {
            cwd: repositoryRoot,
            encoding: 'utf8',
            env: { ...process.env, NO_COLOR: '1' },
          },
        );
      } catch (error) {
        const failed = error as { stdout?: string; stderr?: string };
        report = `${failed.stdout ?? ''}${failed.stderr ?? ''}` || String(error);
      }
      expect(report).toBe('');
    });
  },
);
