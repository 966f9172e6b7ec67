import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CodecUnavailableError } from '../errors/codec-unavailable-error.js';
import { CompressionError } from '../errors/compression-error.js';
import { codecModule } from './codec-module.js';

const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));
const packageEntry = fileURLToPath(new URL('../index.ts', import.meta.url));
const CODEC_PACKAGES = ['snappy', 'lz4-napi', 'fzstd', '@bokuweb/zstd-wasm'] as const;

/**
 * Module hooks, in their own thread: they record every URL that ESM resolution returns, and send
 * the list back when asked, so a static `import` of a codec is caught as well as a `require`.
 */
const resolveRecorder = `
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

/**
 * Runs in a fresh process (this one has loaded every codec already): imports the package, then
 * uses one codec at a time, and prints which codec packages were loaded after each step, through
 * ESM resolution or the CommonJS module cache.
 */
const childScript = `
import { createRequire, register } from 'node:module';
import { MessageChannel } from 'node:worker_threads';
const require = createRequire(import.meta.url);
const { port1, port2 } = new MessageChannel();
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(resolveRecorder)}), {
  data: { port: port2 },
  transferList: [port2],
});
const resolvedUrls = () => new Promise((resolve) => port1.once('message', resolve).postMessage('list'));
const codecs = ${JSON.stringify(CODEC_PACKAGES)};
const loaded = async () => {
  const paths = [...Object.keys(require.cache), ...(await resolvedUrls())];
  return codecs.filter((name) => paths.some((path) => path.includes('/node_modules/' + name + '/')));
};
const records = await import(${JSON.stringify(packageEntry)});
const steps = { import: await loaded() };
const data = Buffer.from('records '.repeat(64));
records.decompressRecords('snappy', records.compressRecords('snappy', data), 1 << 20);
steps.snappy = await loaded();
records.decompressRecords('lz4', records.compressRecords('lz4', data), 1 << 20);
steps.lz4 = await loaded();
await records.initializeZstd();
records.decompressRecords('zstd', records.compressRecords('zstd', data), 1 << 20);
steps.zstd = await loaded();
port1.close();
console.log(JSON.stringify(steps));
`;

describe('codecs load at first use', () => {
  it('importing the package loads no codec, and each codec loads only its own module', () => {
    const child = spawnSync(
      process.execPath,
      ['--import', 'tsx', '--conditions=@kraft/source', '--input-type=module', '-e', childScript],
      { cwd: repoRoot, encoding: 'utf8', timeout: 60_000 },
    );
    expect(child.stderr).toBe('');
    expect(JSON.parse(child.stdout)).toEqual({
      import: [],
      snappy: ['snappy'],
      lz4: ['snappy', 'lz4-napi'],
      zstd: ['snappy', 'lz4-napi', 'fzstd', '@bokuweb/zstd-wasm'],
    });
  });

  it('a codec that cannot be loaded is a CodecUnavailableError, not a CompressionError', () => {
    const load = codecModule<unknown>('kraft-no-such-codec');
    let thrown: unknown;
    try {
      load();
    } catch (error) {
      thrown = error;
    }
    expect(CodecUnavailableError.isCodecUnavailableError(thrown)).toBe(true);
    expect(CompressionError.isCompressionError(thrown)).toBe(false);
    expect((thrown as CodecUnavailableError).specifier).toBe('kraft-no-such-codec');
  });

  it('loads a module once and hands back the same instance', () => {
    const load = codecModule<object>('fzstd');
    expect(load()).toBe(load());
  });
});
