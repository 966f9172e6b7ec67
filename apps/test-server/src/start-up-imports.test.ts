import { fileURLToPath } from 'node:url';
import { runRecordingModuleLoads } from '@kraft/vitest-config/module-load-recorder';
import { describe, expect, it } from 'vitest';

/** The app's own directory: the control imports resolve from its node_modules. */
const appDirectory = fileURLToPath(new URL('../', import.meta.url));
const serverEntry = fileURLToPath(new URL('./run-test-server.ts', import.meta.url));

/**
 * What the server loads only when it needs it, or once its raft client runs (ADR 0046): the
 * terminal log format, the metrics endpoint's client (and what it pulls in), the workload's
 * histograms and the metadata workload's layer.
 */
const DEFERRED_PACKAGES = [
  'pino-pretty',
  'prom-client',
  '@opentelemetry/api',
  'hdr-histogram-js',
  'pako',
  '@kraft/metadata',
  'immutable',
] as const;

/** Imports the server's entry, then the deferred modules themselves (the check's own control). */
const childBody = `
await import(${JSON.stringify(serverEntry)});
const steps = { entry: await loadedPackages() };
await import('pino-pretty');
await import('hdr-histogram-js');
steps.control = await loadedPackages();
console.log(JSON.stringify(steps));
`;

describe("the test server's start-up imports", () => {
  it('the entry loads none of the modules it defers, which the check would see', () => {
    const child = runRecordingModuleLoads(childBody, { cwd: appDirectory, packageNames: DEFERRED_PACKAGES });
    expect(child.stderr).toBe('');
    expect(JSON.parse(child.stdout)).toEqual({
      entry: [],
      control: ['pino-pretty', 'hdr-histogram-js', 'pako'],
    });
  });
});
