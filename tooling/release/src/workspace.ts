// The published packages are every non-private folder under packages/, found on disk rather than
// listed, so a package added later is checked and published without touching this file.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PackageManifest, WorkspaceExpectations } from './package-rules.js';

/** The repository root (this file is tooling/release/src/workspace.ts). */
export const repositoryRoot = join(import.meta.dirname, '..', '..', '..');

/** One published workspace package. */
export interface WorkspacePackage {
  /** The package name, `@kraft/raft`. */
  readonly name: string;
  /** The folder relative to the repository root, `packages/raft`. */
  readonly directory: string;
  /** The absolute folder. */
  readonly path: string;
  readonly manifest: PackageManifest & { readonly name: string; readonly version: string };
}

/** A JSON file's content, typed as the caller expects it (a manifest, a source map). */
export function readJson<T = Record<string, unknown>>(path: string): T {
  return JSON.parse(readFileSync(path, 'utf8')) as T;
}

/** Every package under packages/ that is not private, sorted by folder. */
export function publishedPackages(root: string = repositoryRoot): WorkspacePackage[] {
  const packagesDirectory = join(root, 'packages');
  return readdirSync(packagesDirectory)
    .sort()
    .map((folder) => join(packagesDirectory, folder))
    .filter((path) => existsSync(join(path, 'package.json')))
    .map((path) => ({ path, manifest: readJson(join(path, 'package.json')) }))
    .filter(({ manifest }) => manifest['private'] !== true)
    .map(({ path, manifest }) => {
      const name = String(manifest['name']);
      const directory = path.slice(root.length + 1);
      return { name, directory, path, manifest: manifest as unknown as WorkspacePackage['manifest'] };
    });
}

/** What every package must agree with, read from the root package.json. */
export function workspaceExpectations(root: string = repositoryRoot): WorkspaceExpectations {
  const manifest = readJson(join(root, 'package.json'));
  const repository = manifest['repository'] as { url?: unknown } | undefined;
  const engines = manifest['engines'] as { node?: unknown } | undefined;
  return { repositoryUrl: String(repository?.url), nodeEngine: String(engines?.node) };
}

// turbo caches builds, so the tests that each start with this pay for it once.
/** Builds every published package's dist (turbo, cached). */
export function buildPublishedPackages(root: string = repositoryRoot): void {
  execFileSync(
    'pnpm',
    ['exec', 'turbo', 'run', 'build', '--filter=./packages/*', '--output-logs=errors-only'],
    {
      cwd: root,
      stdio: 'pipe',
      env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1' },
    },
  );
}
