import { describe, expect, it } from 'vitest';
import { parseMutationArguments } from '../mutation.js';

describe('pnpm mutation arguments', () => {
  it('keeps the configured consensus-rule targets when no --package or --mutate is given', () => {
    expect(parseMutationArguments([])).toEqual({ mutate: [], strykerArguments: [] });
  });

  it('mutates the production sources of each --package, without its tests or test kits', () => {
    expect(parseMutationArguments(['--package', 'log']).mutate).toEqual([
      'packages/log/src/**/*.ts',
      '!packages/log/src/**/*.test.ts',
      '!packages/log/src/testing/**',
    ]);
  });

  it('lets --mutate globs and line ranges win over --package and passes other options to stryker', () => {
    const parsed = parseMutationArguments([
      '--package',
      'raft',
      '--mutate',
      'packages/raft/src/states/leader-state.ts:226-237',
      '--incremental',
      'false',
    ]);
    expect(parsed.mutate).toEqual(['packages/raft/src/states/leader-state.ts:226-237']);
    expect(parsed.strykerArguments).toEqual(['--incremental', 'false']);
  });

  it('refuses an unknown package and a missing value', () => {
    expect(() => parseMutationArguments(['--package', 'metadata'])).toThrow(/one of raft, records, log/);
    expect(() => parseMutationArguments(['--mutate'])).toThrow(/needs a value/);
    expect(() => parseMutationArguments(['--mutate', '--force'])).toThrow(/needs a value/);
  });
});
