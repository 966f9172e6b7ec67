// Fails when a package imports one above it, or when the raft core (outside src/io) reaches for
// ambient nondeterminism. Dependency direction (CONVENTIONS C3):
//   protocol <- records <- log <- raft <- metadata;  protocol <- transport-tcp <- raft (src/node only);
//   apps -> any. The transport implements ports declared in protocol (ADR 0023), so raft can wire it.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';

const allowedImports: Record<string, string[]> = {
  '@kraft/protocol': [],
  '@kraft/records': ['@kraft/protocol'],
  '@kraft/log': ['@kraft/protocol', '@kraft/records'],
  '@kraft/raft': ['@kraft/protocol', '@kraft/records', '@kraft/log', '@kraft/transport-tcp'],
  '@kraft/metadata': ['@kraft/protocol', '@kraft/records', '@kraft/raft'],
  '@kraft/transport-tcp': ['@kraft/protocol'],
};

// The raft core is a deterministic state machine: time, randomness, timers and IO come in
// through ports. Only src/io (the driver and adapters) may touch them.
const bannedInRaftCore: Array<[RegExp, string]> = [
  [/\bDate\.now\b/, 'Date.now'],
  [/\bnew Date\(/, 'new Date()'],
  [/\bperformance\.now\b/, 'performance.now'],
  [/\bMath\.random\b/, 'Math.random'],
  [/\bcrypto\.random/, 'crypto.random*'],
  [/\b(setTimeout|setInterval|setImmediate|queueMicrotask)\b/, 'timers'],
  [/\bprocess\.(nextTick|hrtime)\b/, 'process timing'],
  [/from ['"]node:/, 'node:* imports'],
];

// The core sees the log only through the RaftLog port. src/io and src/node wire the real log, and
// so does src/testing (the simulated cluster runs the real log on an in-memory disk, free of the
// ambient nondeterminism above).
const logImport = /from ['"]@kraft\/log['"]/;
const mayWireTheLog = (path: string): boolean =>
  path.startsWith('io/') || path.startsWith('node/') || path.startsWith('testing/');

function sourceFiles(directory: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(directory);
  } catch {
    return [];
  }
  return entries.flatMap((name) => {
    const path = join(directory, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' ? [] : sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

const importPattern = /(?:from|import)\s*\(?\s*['"](@kraft\/[a-z-]+)(?:\/[^'"]*)?['"]/g;

// @kraft/raft/internal is the core's building blocks for the package's own tests and simulator: no
// other package, app, example or tool may import it, in production code or in tests.
const internalEntryPattern = /(?:from|import)\s*\(?\s*['"]@kraft\/raft\/internal['"]/;
// @kraft/raft/test-kit resolves only inside this repository (test/ is not published): tests and
// benchmarks may use it, production code may not.
const testKitEntryPattern = /(?:from|import)\s*\(?\s*['"]@kraft\/raft\/test-kit['"]/;
// The repository's test tooling (tooling/vitest) is no layer: any package's tests may use it,
// its production code may not.
const TEST_TOOLING: readonly string[] = ['@kraft/vitest-config'];
const isTestOrBench = (path: string): boolean =>
  /\.(test|test-support|bench)\.ts$/.test(path) || /(^|\/)test\//.test(path);

/** The entry-point rules for one file outside packages/raft. */
function entryProblems(root: string, file: string, text: string): string[] {
  const where = relative(root, file);
  const problems: string[] = [];
  if (internalEntryPattern.test(text))
    problems.push(`${where}: imports @kraft/raft/internal, which only packages/raft may use`);
  if (testKitEntryPattern.test(text) && !isTestOrBench(where))
    problems.push(`${where}: imports @kraft/raft/test-kit, which only tests and benchmarks may use`);
  return problems;
}

/** The rules for one file of a package's src/. */
function sourceFileProblems(
  root: string,
  packageName: string,
  sourceDirectory: string,
  file: string,
  text: string,
): string[] {
  const problems: string[] = [];
  const allowed = allowedImports[packageName] ?? [];
  const where = relative(root, file);
  for (const match of text.matchAll(importPattern)) {
    const target = match[1] as string;
    if (TEST_TOOLING.includes(target) && isTestOrBench(where)) continue;
    if (target !== packageName && !allowed.includes(target)) {
      problems.push(`${where}: imports ${target}, which is not below ${packageName}`);
    }
  }
  const inRaftPackage = packageName === '@kraft/raft';
  if (!inRaftPackage) return [...problems, ...entryProblems(root, file, text)];
  const fromSource = relative(sourceDirectory, file);
  // src/io (the driver and adapters) and src/node (RaftNode's wiring) are the IO edge.
  const inRaftCore = !fromSource.startsWith('io/') && !fromSource.startsWith('node/');
  // RaftNode (src/node) is the one place that wires sockets to the core; the core and even the
  // driver in src/io see only the NetworkChannel port, so the simulator runs the same code.
  if (!fromSource.startsWith('node/') && /from ['"]@kraft\/transport-tcp['"]/.test(text))
    problems.push(`${where}: only src/node may import @kraft/transport-tcp`);
  // The client's modules see the handlers only through client/request-senders.ts.
  if (fromSource.startsWith('client/') && /from ['"]\.\.\/handlers\//.test(text))
    problems.push(`${where}: client/ must not import handlers/`);
  if (inRaftCore && !file.endsWith('.test.ts')) {
    for (const [pattern, what] of bannedInRaftCore) {
      if (pattern.test(text)) problems.push(`${where}: the raft core must not use ${what}`);
    }
  }
  if (!file.endsWith('.test.ts') && !mayWireTheLog(fromSource) && logImport.test(text)) {
    problems.push(
      `${where}: the raft core must not use @kraft/log (only src/io, src/node and src/testing may; the core sees the RaftLog port)`,
    );
  }
  if (!isTestOrBench(fromSource) && testKitEntryPattern.test(text))
    problems.push(`${where}: imports @kraft/raft/test-kit, which only tests and benchmarks may use`);
  return problems;
}

/** Every layer problem of the repository at `root` (empty when the layers hold). */
export function layerProblems(root: string): string[] {
  const problems: string[] = [];
  const packageDirectories = readdirSync(join(root, 'packages'));
  for (const packageDirectory of packageDirectories) {
    const manifestPath = join(root, 'packages', packageDirectory, 'package.json');
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as {
      name: string;
      dependencies?: Record<string, string>;
    };
    const allowed = allowedImports[manifest.name];
    if (allowed === undefined) {
      problems.push(`${manifest.name}: not placed in the layer table of check-layers.ts`);
      continue;
    }
    for (const dependency of Object.keys(manifest.dependencies ?? {})) {
      if (dependency.startsWith('@kraft/') && !allowed.includes(dependency)) {
        problems.push(`${manifest.name}: package.json depends on ${dependency}, which is not below it`);
      }
    }
    const sourceDirectory = join(root, 'packages', packageDirectory, 'src');
    for (const file of sourceFiles(sourceDirectory)) {
      const text = readFileSync(file, 'utf8');
      problems.push(...sourceFileProblems(root, manifest.name, sourceDirectory, file, text));
    }
    // The packages' test folders (outside src/) see only the entry rules; raft's own may use both.
    if (manifest.name === '@kraft/raft') continue;
    for (const file of sourceFiles(join(root, 'packages', packageDirectory, 'test'))) {
      problems.push(...entryProblems(root, file, readFileSync(file, 'utf8')));
    }
  }
  for (const area of ['apps', 'examples', 'tooling']) {
    for (const file of sourceFiles(join(root, area))) {
      problems.push(...entryProblems(root, file, readFileSync(file, 'utf8')));
    }
  }
  return problems;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const problems = layerProblems(join(import.meta.dirname, '..', '..'));
  if (problems.length > 0) {
    process.stderr.write(`layer check failed:\n${problems.map((line) => `  ${line}`).join('\n')}\n`);
    process.exit(1);
  }
  process.stdout.write('layer check passed\n');
}
