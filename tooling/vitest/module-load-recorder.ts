import { spawnSync } from 'node:child_process';

/**
 * Module hooks, in their own thread: they record every URL that ESM resolution returns, and send
 * the list back when asked, so a static `import` is caught as well as a `require`.
 */
const RESOLVE_RECORDER = `
let port;
const urls = [];
export function initialize(data) {
  port = data.port;
  port.on('message', () => port.postMessage(urls.slice()));
  port.unref();
}
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  urls.push(result.url);
  return result;
}
`;

/** How long the child may take: it starts tsx and imports TypeScript sources. */
const CHILD_TIMEOUT_MS = 60_000;

/**
 * Runs `body` (an ES module's statements) in a fresh Node process with tsx and the
 * `@kraft/source` condition, after a prelude that defines `await loadedPackages()`: the names
 * among `packageNames` that the process has loaded so far, through ESM resolution or the
 * CommonJS module cache (a workspace package, `@kraft/<name>`, counts when its `src/` loaded). A fresh process matters: the test runner has loaded most packages
 * already. Returns the child's stdout and stderr; `body` prints what the test checks.
 */
export function runRecordingModuleLoads(
  body: string,
  options: { readonly cwd: string; readonly packageNames: readonly string[] },
): { readonly stdout: string; readonly stderr: string } {
  const script = `
import { createRequire, register } from 'node:module';
import { MessageChannel } from 'node:worker_threads';
const require = createRequire(import.meta.url);
const { port1, port2 } = new MessageChannel();
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(RESOLVE_RECORDER)}), {
  data: { port: port2 },
  transferList: [port2],
});
port1.unref();
const resolvedUrls = () => new Promise((resolve) => port1.once('message', resolve).postMessage('list'));
const packageNames = ${JSON.stringify(options.packageNames)};
const pathFragment = (name) =>
  name.startsWith('@kraft/') ? '/packages/' + name.slice('@kraft/'.length) + '/src/' : '/node_modules/' + name + '/';
const loadedPackages = async () => {
  const paths = [...Object.keys(require.cache), ...(await resolvedUrls())];
  return packageNames.filter((name) => paths.some((path) => path.includes(pathFragment(name))));
};
${body}
`;
  const child = spawnSync(
    process.execPath,
    ['--import', 'tsx', '--conditions=@kraft/source', '--input-type=module', '-e', script],
    { cwd: options.cwd, encoding: 'utf8', timeout: CHILD_TIMEOUT_MS },
  );
  return { stdout: child.stdout, stderr: child.stderr };
}
