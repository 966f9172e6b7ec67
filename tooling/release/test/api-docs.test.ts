import { describe, expect, it } from 'vitest';
import { undocumentedExports } from '../src/api-docs.js';

describe('undocumentedExports', () => {
  it("reads TypeDoc's undocumented warnings, coloured or not, and nothing else", () => {
    const log = [
      '\u001b[93m[warning]\u001b[0m LogConfigOptions (Interface), defined in @kraft/log/src/config/log-config.ts, does not have any documentation',
      '[warning] testing.MockLog.startOffset (CallSignature), defined in @kraft/raft/src/testing/mock-log.ts, does not have any documentation',
      '[warning] The glob /x/packages/log/src/testing/index.ts did not match any files',
      '[warning] Found 0 errors and 3 warnings',
    ].join('\n');
    expect(undocumentedExports(log)).toEqual([
      '@kraft/log LogConfigOptions (Interface)',
      '@kraft/raft testing.MockLog.startOffset (CallSignature)',
    ]);
  });
});
