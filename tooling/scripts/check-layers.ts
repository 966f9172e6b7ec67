// Fails when a package imports one above it, or when the raft core (outside src/io) reaches for
// ambient nondeterminism. Dependency direction (CONVENTIONS C3):
//   protocol <- records <- log <- raft <- metadata;  protocol <- transport-tcp <- raft (src/node only);
//   apps -> any. The transport implements ports declared in protocol (ADR 0023), so raft can wire it.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = join(import.meta.dirname, '..', '..');

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
const problems: string[] = [];

for (const packageDirectory of readdirSync(join(root, 'packages'))) {
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
    const where = relative(root, file);
    for (const match of text.matchAll(importPattern)) {
      const target = match[1] as string;
      if (target !== manifest.name && !allowed.includes(target)) {
        problems.push(`${where}: imports ${target}, which is not below ${manifest.name}`);
      }
    }
    const inRaftPackage = manifest.name === '@kraft/raft';
    const fromSource = relative(sourceDirectory, file);
    // src/io (the driver and adapters) and src/node (RaftNode's wiring) are the IO edge.
    const inRaftCore = inRaftPackage && !fromSource.startsWith('io/') && !fromSource.startsWith('node/');
    // RaftNode (src/node) is the one place that wires sockets to the core; the core and even the
    // driver in src/io see only the NetworkChannel port, so the simulator runs the same code.
    if (inRaftPackage && !fromSource.startsWith('node/')) {
      if (/from ['"]@kraft\/transport-tcp['"]/.test(text))
        problems.push(`${where}: only src/node may import @kraft/transport-tcp`);
    }
    // The client's modules see the handlers only through client/request-senders.ts.
    if (inRaftPackage && fromSource.startsWith('client/')) {
      if (/from ['"]\.\.\/handlers\//.test(text))
        problems.push(`${where}: client/ must not import handlers/`);
    }
    if (inRaftCore && !file.endsWith('.test.ts')) {
      for (const [pattern, what] of bannedInRaftCore) {
        if (pattern.test(text)) problems.push(`${where}: the raft core must not use ${what}`);
      }
    }
    if (inRaftPackage && !file.endsWith('.test.ts') && !mayWireTheLog(fromSource)) {
      if (logImport.test(text)) {
        problems.push(
          `${where}: the raft core must not use @kraft/log (only src/io, src/node and src/testing may; the core sees the RaftLog port)`,
        );
      }
    }
  }
}

// @kraft/raft/internal is the core's building blocks for the package's own tests and simulator: no
// other package, app, example or tool may import it, in production code or in tests.
const internalEntryPattern = /(?:from|import)\s*\(?\s*['"]@kraft\/raft\/internal['"]/;
const raftPackageDirectory = join(root, 'packages', 'raft');
for (const area of ['packages', 'apps', 'examples', 'tooling']) {
  for (const file of sourceFiles(join(root, area))) {
    if (file.startsWith(`${raftPackageDirectory}/`)) continue;
    if (internalEntryPattern.test(readFileSync(file, 'utf8'))) {
      problems.push(
        `${relative(root, file)}: imports @kraft/raft/internal, which only packages/raft may use`,
      );
    }
  }
}

if (problems.length > 0) {
  process.stderr.write(`layer check failed:\n${problems.map((line) => `  ${line}`).join('\n')}\n`);
  process.exit(1);
}
process.stdout.write('layer check passed\n');
