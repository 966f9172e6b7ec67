// What a registry user expects of a published @kraft package, as pure checks over its manifest
// and over the file list of its packed tarball. Each returns the problems it found, so one run
// reports them all.

/** The manifest fields the rules read; anything else in package.json is left alone. */
export interface PackageManifest {
  readonly name?: unknown;
  readonly description?: unknown;
  readonly license?: unknown;
  readonly keywords?: unknown;
  readonly repository?: unknown;
  readonly type?: unknown;
  readonly engines?: unknown;
  readonly sideEffects?: unknown;
  readonly files?: unknown;
  readonly exports?: unknown;
  readonly publishConfig?: unknown;
}

/** What every package must agree with: the root manifest's repository and engines. */
export interface WorkspaceExpectations {
  readonly repositoryUrl: string;
  readonly nodeEngine: string;
}

/**
 * Packages that ship their `src/testing` and `dist/testing` on purpose, each with the reason. A
 * package is allowed them only when it is listed here and its `exports` names `./testing`.
 */
export const testingKitAllowlist: ReadonlyMap<string, string> = new Map([
  [
    '@kraft/raft',
    'the simulated cluster (SimulatedCluster) is exported as @kraft/raft/testing for embedders',
  ],
  ['@kraft/protocol', 'message arbitraries and the reference-schema comparison, for schema DSL users'],
  ['@kraft/metadata', 'an arbitrary of every metadata record, for users testing publishers'],
]);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isNonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.trim().length > 0;
}

/**
 * A workspace-only entry: its one condition is `@kraft/source` and it points at files the package
 * does not ship (`test/`), so it resolves inside this repository and nowhere else. It serves other
 * packages' tests (raft's RPC-level kit, `@kraft/raft/test-kit`); registry users never see a
 * module behind it.
 */
export function isWorkspaceOnlyEntry(target: unknown): boolean {
  if (!isRecord(target)) return false;
  const conditions = Object.keys(target);
  const path = target['@kraft/source'];
  return conditions.length === 1 && typeof path === 'string' && path.startsWith('./test/');
}

/** The `exports` subpaths a registry user can import: all but `./package.json` and workspace-only ones. */
export function publishedSubpaths(exportsField: unknown): string[] {
  if (!isRecord(exportsField)) return [];
  return Object.entries(exportsField)
    .filter(([subpath, target]) => subpath !== './package.json' && !isWorkspaceOnlyEntry(target))
    .map(([subpath]) => subpath);
}

/** The `exports` subpaths only the workspace resolves (`isWorkspaceOnlyEntry`): none is published. */
export function workspaceOnlySubpaths(exportsField: unknown): string[] {
  if (!isRecord(exportsField)) return [];
  return Object.entries(exportsField)
    .filter(([, target]) => isWorkspaceOnlyEntry(target))
    .map(([subpath]) => subpath);
}

/** Problems with `exports`: ESM only, and `types` ahead of `import` in every entry. */
export function exportsProblems(exportsField: unknown): string[] {
  if (!isRecord(exportsField)) return ['exports: must be an object of subpaths'];
  if (!('.' in exportsField)) return ['exports: has no "." entry'];
  const problems: string[] = [];
  for (const [subpath, target] of Object.entries(exportsField)) {
    if (subpath === './package.json' || isWorkspaceOnlyEntry(target)) continue;
    if (!isRecord(target)) {
      problems.push(`exports["${subpath}"]: must be an object of conditions (types, import)`);
      continue;
    }
    const conditions = Object.keys(target);
    const typesAt = conditions.indexOf('types');
    const importAt = conditions.indexOf('import');
    if (typesAt === -1 || importAt === -1) {
      problems.push(`exports["${subpath}"]: needs both "types" and "import"`);
    } else if (typesAt > importAt) {
      problems.push(`exports["${subpath}"]: "types" must come before "import"`);
    }
    for (const condition of ['require', 'default', 'module']) {
      if (condition in target) {
        problems.push(`exports["${subpath}"]: "${condition}" found; the packages are ESM only (import)`);
      }
    }
  }
  return problems;
}

function repositoryProblems(repository: unknown, directory: string, repositoryUrl: string): string[] {
  if (!isRecord(repository)) return ['repository: must be { type, url, directory }'];
  const problems: string[] = [];
  if (repository['type'] !== 'git') problems.push('repository.type: must be "git"');
  if (repository['url'] !== repositoryUrl)
    problems.push(`repository.url: must be the root's ${repositoryUrl}`);
  if (repository['directory'] !== directory) problems.push(`repository.directory: must be "${directory}"`);
  return problems;
}

/**
 * Problems with the registry-facing fields of one package's manifest. `directory` is the
 * package's folder relative to the repository root (`packages/raft`).
 */
export function manifestProblems(
  manifest: PackageManifest,
  directory: string,
  expectations: WorkspaceExpectations,
): string[] {
  const problems: string[] = [];
  if (typeof manifest.name !== 'string' || !manifest.name.startsWith('@kraft/')) {
    problems.push('name: must be @kraft/<name>');
  }
  if (!isNonEmptyString(manifest.description)) problems.push('description: missing');
  if (manifest.license !== 'Apache-2.0') problems.push('license: must be "Apache-2.0"');
  const keywords = manifest.keywords;
  if (!Array.isArray(keywords) || keywords.length === 0 || !keywords.every(isNonEmptyString)) {
    problems.push('keywords: must be a non-empty list of words');
  }
  problems.push(...repositoryProblems(manifest.repository, directory, expectations.repositoryUrl));
  if (manifest.type !== 'module') problems.push('type: must be "module"');
  if (!isRecord(manifest.engines) || manifest.engines['node'] !== expectations.nodeEngine) {
    problems.push(`engines.node: must be the root's "${expectations.nodeEngine}"`);
  }
  // Every package is free of import-time side effects; one that gains some must list its files.
  if (manifest.sideEffects !== false && !Array.isArray(manifest.sideEffects)) {
    problems.push('sideEffects: must be false (or the list of files that have side effects)');
  }
  if (!Array.isArray(manifest.files) || !manifest.files.includes('dist')) {
    problems.push('files: must be a list that includes "dist"');
  }
  problems.push(...exportsProblems(manifest.exports));
  if (!isRecord(manifest.publishConfig) || manifest.publishConfig['access'] !== 'public') {
    problems.push('publishConfig.access: must be "public" (scoped packages are private by default)');
  }
  return problems;
}

const requiredFiles = ['package.json', 'README.md', 'LICENSE', 'dist/index.js', 'dist/index.d.ts'];
const allowedTopLevel = new Set(['package.json', 'README.md', 'LICENSE', 'CHANGELOG.md', 'dist', 'src']);
const forbiddenFiles: ReadonlyArray<[RegExp, string]> = [
  [/\.test\.ts$/, 'a test file'],
  [/(^|\/)(test|tests|__tests__|__fixtures__|fixtures)\//, 'a test folder'],
  [/\.tsbuildinfo$/, 'a TypeScript build cache'],
  [/(^|\/)tsconfig[^/]*\.json$/, 'a tsconfig'],
  [/(^|\/)\.turbo\//, 'a turbo cache'],
];
const testingKitPath = /^(src|dist)\/testing\//;

/** What a tarball check needs: the package's manifest, its file list and its source maps. */
export interface TarballContents {
  readonly manifest: PackageManifest;
  /** Paths relative to the package root (the tarball's `package/` prefix removed). */
  readonly files: ReadonlyArray<string>;
  /** Each source map's path mapped to its `sources` list. */
  readonly sourceMaps: ReadonlyMap<string, ReadonlyArray<string>>;
}

function testingKitProblems(contents: TarballContents): string[] {
  const testingFiles = contents.files.filter((file) => testingKitPath.test(file));
  if (testingFiles.length === 0) return [];
  const name = String(contents.manifest.name);
  const exportsField = contents.manifest.exports;
  const exported = isRecord(exportsField) && './testing' in exportsField;
  if (testingKitAllowlist.has(name) && exported) return [];
  return [`${testingFiles[0]}: a testing kit is shipped but not exported and allowlisted on purpose`];
}

function sourceMapProblems(contents: TarballContents): string[] {
  const shipped = new Set(contents.files);
  const problems: string[] = [];
  for (const [mapPath, sources] of contents.sourceMaps) {
    const mapDirectory = mapPath.split('/').slice(0, -1);
    for (const source of sources) {
      const resolved = resolveRelative(mapDirectory, source);
      if (resolved === undefined || !shipped.has(resolved)) {
        problems.push(`${mapPath}: points at ${source}, which is not shipped`);
      }
    }
  }
  return problems;
}

/** `base` joined with a relative POSIX path, or undefined when it climbs out of the package. */
export function resolveRelative(base: ReadonlyArray<string>, relativePath: string): string | undefined {
  const parts = [...base];
  for (const part of relativePath.split('/')) {
    if (part === '..') {
      if (parts.length === 0) return undefined;
      parts.pop();
    } else if (part !== '.' && part !== '') {
      parts.push(part);
    }
  }
  return parts.join('/');
}

/** Problems with what one packed tarball holds. */
export function tarballProblems(contents: TarballContents): string[] {
  const problems: string[] = [];
  const files = new Set(contents.files);
  for (const required of requiredFiles) {
    if (!files.has(required)) problems.push(`${required}: missing from the tarball`);
  }
  for (const file of contents.files) {
    const topLevel = file.split('/')[0] ?? file;
    if (!allowedTopLevel.has(topLevel)) problems.push(`${file}: not something a package ships`);
    for (const [pattern, what] of forbiddenFiles) {
      if (pattern.test(file)) problems.push(`${file}: ${what} is shipped`);
    }
  }
  problems.push(...testingKitProblems(contents), ...sourceMapProblems(contents));
  return problems;
}
