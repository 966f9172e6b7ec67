import { fileURLToPath } from 'node:url';
import { runRecordingModuleLoads } from '@kraft/vitest-config/module-load-recorder';
import { describe, expect, it } from 'vitest';
import { CodecUnavailableError } from '../errors/codec-unavailable-error.js';
import { CompressionError } from '../errors/compression-error.js';
import { codecModule } from './codec-module.js';

const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));
const packageEntry = fileURLToPath(new URL('../index.ts', import.meta.url));
const CODEC_PACKAGES = ['snappy', 'lz4-napi', 'fzstd', '@bokuweb/zstd-wasm'] as const;

/**
 * Imports the package, then uses one codec at a time, and prints which codec packages were loaded
 * after each step (in a fresh process: this one has loaded every codec already).
 */
const childBody = `
const records = await import(${JSON.stringify(packageEntry)});
const steps = { import: await loadedPackages() };
const data = Buffer.from('records '.repeat(64));
records.decompressRecords('snappy', records.compressRecords('snappy', data), 1 << 20);
steps.snappy = await loadedPackages();
records.decompressRecords('lz4', records.compressRecords('lz4', data), 1 << 20);
steps.lz4 = await loadedPackages();
await records.initializeZstd();
records.decompressRecords('zstd', records.compressRecords('zstd', data), 1 << 20);
steps.zstd = await loadedPackages();
console.log(JSON.stringify(steps));
`;

describe('codecs load at first use', () => {
  it('importing the package loads no codec, and each codec loads only its own module', () => {
    const child = runRecordingModuleLoads(childBody, { cwd: repoRoot, packageNames: CODEC_PACKAGES });
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
