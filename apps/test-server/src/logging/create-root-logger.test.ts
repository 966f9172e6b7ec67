import { describe, expect, it } from 'vitest';
import { createRootLogger } from './create-root-logger.js';

describe('createRootLogger', () => {
  it.each([
    [undefined, 'info', undefined],
    ['debug', 'debug', undefined],
    [' WARN ', 'warn', undefined],
    ['silent', 'silent', undefined],
    ['loud', 'info', 'loud'],
  ])('LOG_LEVEL=%j gives level %s', (logLevel, level, invalidLevel) => {
    const root = createRootLogger({ logLevel, stderrIsTerminal: false });
    expect(root.logger.level).toBe(level);
    expect(root.invalidLevel).toBe(invalidLevel);
    root.flush();
  });
});
