import { describe, expect, it } from 'vitest';
import {
  exportsProblems,
  isWorkspaceOnlyEntry,
  manifestProblems,
  type PackageManifest,
  publishedSubpaths,
  resolveRelative,
  type TarballContents,
  tarballProblems,
  workspaceOnlySubpaths,
} from '../src/package-rules.js';

const expectations = { repositoryUrl: 'git+https://example.test/kraft.git', nodeEngine: '>=20.19' };

const goodManifest = {
  name: '@kraft/records',
  description: 'Kafka record batches',
  license: 'Apache-2.0',
  keywords: ['kafka'],
  repository: { type: 'git', url: expectations.repositoryUrl, directory: 'packages/records' },
  type: 'module',
  engines: { node: '>=20.19' },
  sideEffects: false,
  files: ['dist', 'src'],
  exports: {
    './package.json': './package.json',
    '.': { '@kraft/source': './src/index.ts', types: './dist/index.d.ts', import: './dist/index.js' },
  },
  publishConfig: { access: 'public' },
} satisfies PackageManifest;

const shippedFiles = ['LICENSE', 'README.md', 'dist/index.d.ts', 'dist/index.js', 'package.json'];

function contents(overrides: Partial<TarballContents> = {}): TarballContents {
  return { manifest: goodManifest, files: shippedFiles, sourceMaps: new Map(), ...overrides };
}

describe('manifestProblems', () => {
  it('accepts a manifest with every field a registry user expects', () => {
    expect(manifestProblems(goodManifest, 'packages/records', expectations)).toEqual([]);
  });

  it.each([
    ['description', { description: '' }, 'description'],
    ['license', { license: 'MIT' }, 'license'],
    ['keywords', { keywords: [] }, 'keywords'],
    ['repository', { repository: 'kraft' }, 'repository'],
    [
      'repository.url',
      { repository: { ...goodManifest.repository, url: 'https://other.test' } },
      'repository.url',
    ],
    ['type', { type: 'commonjs' }, 'type'],
    ['engines', { engines: { node: '>=18' } }, 'engines.node'],
    ['sideEffects', { sideEffects: undefined }, 'sideEffects'],
    ['files', { files: ['src'] }, 'files'],
    ['publishConfig', { publishConfig: {} }, 'publishConfig.access'],
  ])('names a wrong %s', (_field, change, prefix) => {
    const problems = manifestProblems({ ...goodManifest, ...change }, 'packages/records', expectations);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(new RegExp(`^${prefix.replace('.', '\\.')}:`));
  });

  it('wants repository.directory to be the package folder', () => {
    expect(manifestProblems(goodManifest, 'packages/log', expectations)).toEqual([
      'repository.directory: must be "packages/log"',
    ]);
  });
});

describe('exportsProblems', () => {
  it('wants types before import', () => {
    expect(exportsProblems({ '.': { import: './dist/index.js', types: './dist/index.d.ts' } })).toEqual([
      'exports["."]: "types" must come before "import"',
    ]);
  });

  it('refuses a CommonJS condition, since the packages are ESM only', () => {
    const problems = exportsProblems({
      '.': { types: './dist/index.d.ts', import: './dist/index.js', require: './dist/index.cjs' },
    });
    expect(problems).toEqual(['exports["."]: "require" found; the packages are ESM only (import)']);
  });

  it('lets a workspace-only entry into test/ have no types or import, and nothing else', () => {
    const exports = {
      '.': { types: './dist/index.d.ts', import: './dist/index.js' },
      './test-kit': { '@kraft/source': './test/kit/index.ts' },
      './kit': { '@kraft/source': './src/kit/index.ts' },
    };
    expect(exportsProblems(exports)).toEqual(['exports["./kit"]: needs both "types" and "import"']);
    expect(isWorkspaceOnlyEntry(exports['./test-kit'])).toBe(true);
    expect(isWorkspaceOnlyEntry({ '@kraft/source': './test/kit/index.ts', import: './x.js' })).toBe(false);
    expect(publishedSubpaths({ './package.json': './package.json', ...exports })).toEqual(['.', './kit']);
    expect(workspaceOnlySubpaths({ './package.json': './package.json', ...exports })).toEqual(['./test-kit']);
    expect(workspaceOnlySubpaths(undefined)).toEqual([]);
  });

  it('wants a root entry and condition objects', () => {
    expect(exportsProblems({ './x': './x.js' })).toEqual(['exports: has no "." entry']);
    expect(exportsProblems({ '.': './dist/index.js' })).toHaveLength(1);
  });
});

describe('tarballProblems', () => {
  it('accepts dist, src, the README, the LICENSE and the manifest', () => {
    expect(tarballProblems(contents({ files: [...shippedFiles, 'src/index.ts'] }))).toEqual([]);
  });

  it('wants the LICENSE and the README', () => {
    const files = shippedFiles.filter((file) => file !== 'LICENSE' && file !== 'README.md');
    expect(tarballProblems(contents({ files }))).toEqual([
      'README.md: missing from the tarball',
      'LICENSE: missing from the tarball',
    ]);
  });

  it.each(['src/record-batch.test.ts', 'test/fixtures/batch.bin', 'tsconfig.build.json', 'tsup.config.ts'])(
    'refuses %s',
    (file) => {
      expect(tarballProblems(contents({ files: [...shippedFiles, file] }))).not.toEqual([]);
    },
  );

  it('refuses a testing kit that is not exported and allowlisted', () => {
    const files = [...shippedFiles, 'src/testing/mock-log.ts'];
    expect(tarballProblems(contents({ files }))).toEqual([
      'src/testing/mock-log.ts: a testing kit is shipped but not exported and allowlisted on purpose',
    ]);
    const exported = { ...goodManifest, exports: { ...goodManifest.exports, './testing': {} } };
    expect(tarballProblems(contents({ files, manifest: exported }))).toHaveLength(1);
  });

  it("allows @kraft/raft's exported testing kit", () => {
    const manifest = {
      ...goodManifest,
      name: '@kraft/raft',
      exports: { ...goodManifest.exports, './testing': goodManifest.exports['.'] },
    };
    const files = [...shippedFiles, 'src/testing/mock-log.ts', 'dist/testing/index.js'];
    expect(tarballProblems(contents({ manifest, files }))).toEqual([]);
  });

  it('refuses a source map that points at a file not shipped', () => {
    const files = [...shippedFiles, 'dist/index.js.map', 'src/index.ts'];
    const sourceMaps = new Map([['dist/index.js.map', ['../src/index.ts', '../src/other.ts']]]);
    expect(tarballProblems(contents({ files, sourceMaps }))).toEqual([
      'dist/index.js.map: points at ../src/other.ts, which is not shipped',
    ]);
  });
});

describe('resolveRelative', () => {
  it('joins and climbs, and refuses to climb out of the package', () => {
    expect(resolveRelative(['dist', 'testing'], '../../src/a.ts')).toBe('src/a.ts');
    expect(resolveRelative(['dist'], './b.js')).toBe('dist/b.js');
    expect(resolveRelative(['dist'], '../../outside.ts')).toBeUndefined();
  });
});
