// The registry test installs from a registry with no uplinks, so every third-party package the
// published @kraft packages depend on (transitively, optional platform binaries included where
// this machine has them) is published there too, copied from this workspace's install.
import { cpSync, existsSync, realpathSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { readJson } from './workspace.js';

/** One installed third-party package. */
export interface InstalledPackage {
  readonly name: string;
  readonly version: string;
  /** Its folder on disk (the real path inside pnpm's store layout). */
  readonly path: string;
}

interface DependencyFields {
  readonly name: string;
  readonly version: string;
  readonly dependencies?: Record<string, string>;
  readonly optionalDependencies?: Record<string, string>;
}

function readManifest(path: string): DependencyFields {
  return readJson<DependencyFields>(join(path, 'package.json'));
}

/** Where Node would find `name` from `fromPath`: the nearest node_modules/<name> above it. */
export function findInstalled(fromPath: string, name: string): string | undefined {
  for (let directory = fromPath; ; directory = dirname(directory)) {
    if (basename(directory) !== 'node_modules') {
      const candidate = join(directory, 'node_modules', name);
      if (existsSync(join(candidate, 'package.json'))) return realpathSync(candidate);
    }
    if (dirname(directory) === directory) return undefined;
  }
}

/**
 * Every third-party package reachable from the given package folders through `dependencies`
 * and installed `optionalDependencies`, skipping `@kraft/*` (those are published from the tree);
 * `extra` adds packages the consumer installs besides (its `@types/node`), found from `extra.from`.
 */
export function thirdPartyClosure(
  packagePaths: readonly string[],
  extra: { readonly from: string; readonly names: readonly string[] } = { from: '', names: [] },
): InstalledPackage[] {
  const found = new Map<string, InstalledPackage>();
  const pending = packagePaths.map((path) => ({ path, manifest: readManifest(path) }));
  const wanted = Object.fromEntries(extra.names.map((name) => [name, '*']));
  if (extra.names.length > 0)
    pending.push({ path: extra.from, manifest: { name: 'extra', version: '0.0.0', dependencies: wanted } });
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { path, manifest } = next;
    const required = Object.keys(manifest.dependencies ?? {});
    const optional = Object.keys(manifest.optionalDependencies ?? {});
    for (const name of [...required, ...optional]) {
      if (name.startsWith('@kraft/')) continue;
      const installedPath = findInstalled(path, name);
      if (installedPath === undefined) {
        if (required.includes(name))
          throw new Error(`${manifest.name} needs ${name}, which is not installed`);
        continue; // an optional binary for another platform
      }
      const installed = readManifest(installedPath);
      const key = `${installed.name}@${installed.version}`;
      if (found.has(key)) continue;
      found.set(key, { name: installed.name, version: installed.version, path: installedPath });
      pending.push({ path: installedPath, manifest: installed });
    }
  }
  return [...found.values()].sort((left, right) => left.name.localeCompare(right.name));
}

/**
 * Copies an installed package into `stagingPath` as a publishable folder: no scripts (nothing
 * runs at publish), no publishConfig (it could name another registry), and only the optional
 * dependencies that are mirrored too.
 */
export function stageForMirror(
  installed: InstalledPackage,
  stagingPath: string,
  mirrored: ReadonlySet<string>,
) {
  cpSync(installed.path, stagingPath, { recursive: true, dereference: true });
  const manifestPath = join(stagingPath, 'package.json');
  const manifest = readJson(manifestPath);
  delete manifest['scripts'];
  delete manifest['publishConfig'];
  delete manifest['devDependencies'];
  const optional = manifest['optionalDependencies'] as Record<string, string> | undefined;
  if (optional !== undefined) {
    manifest['optionalDependencies'] = Object.fromEntries(
      Object.entries(optional).filter(([name]) => mirrored.has(name)),
    );
  }
  writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
}
