// Shared tsup settings for every published @kraft package: ESM only, typed, Node 20.
import { defineConfig } from 'tsup';

/** @param {{ entry: string[] }} options */
export function defineLibrary(options) {
  return defineConfig({
    entry: options.entry,
    format: ['esm'],
    dts: { compilerOptions: { noEmit: false, customConditions: [] } },
    sourcemap: true,
    clean: true,
    platform: 'node',
    target: 'node20',
    tsconfig: 'tsconfig.build.json',
  });
}
