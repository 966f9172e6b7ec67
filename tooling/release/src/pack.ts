// Packs a workspace package the way `pnpm publish` would (workspace:* turned into versions) and
// reads the tarball back: its file list, its manifest and its source maps.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { PackageManifest, TarballContents } from './package-rules.js';
import { readJson } from './workspace.js';

/** A packed package: the tarball and the folder it was unpacked into. */
export interface PackedPackage {
  readonly tarballPath: string;
  /** The unpacked `package/` folder. */
  readonly unpackedPath: string;
  readonly contents: TarballContents;
}

function filesUnder(directory: string): string[] {
  return readdirSync(directory).flatMap((name) => {
    const path = join(directory, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/** Runs `pnpm pack` in `packagePath` into `destination`, then unpacks and reads the tarball. */
export function packPackage(packagePath: string, destination: string): PackedPackage {
  const output = execFileSync('pnpm', ['pack', '--pack-destination', destination, '--json'], {
    cwd: packagePath,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const tarballPath = String((JSON.parse(output) as { filename: unknown }).filename);
  const unpackInto = join(destination, `${tarballPath.split('/').at(-1)}.unpacked`);
  mkdirSync(unpackInto, { recursive: true });
  execFileSync('tar', ['-xzf', tarballPath, '-C', unpackInto]);
  const unpackedPath = join(unpackInto, 'package');
  const files = filesUnder(unpackedPath)
    .map((path) => relative(unpackedPath, path))
    .sort();
  const sourceMaps = new Map<string, ReadonlyArray<string>>();
  for (const file of files.filter((path) => path.endsWith('.map'))) {
    const map = readJson<{ sources?: unknown }>(join(unpackedPath, file));
    sourceMaps.set(file, Array.isArray(map.sources) ? map.sources.map(String) : []);
  }
  const manifest = readJson<PackageManifest>(join(unpackedPath, 'package.json'));
  return { tarballPath, unpackedPath, contents: { manifest, files, sourceMaps } };
}
