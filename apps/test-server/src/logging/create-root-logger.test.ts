import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { repeatedKeys, topLevelKeys } from '../../test/support/json-line-keys.js';
import { createRootLogger, rootLoggerOptions } from './create-root-logger.js';

function memoryLogger(level: string) {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(
        ...String(chunk)
          .split('\n')
          .filter((line) => line !== ''),
      );
      done();
    },
  });
  return { logger: pino(rootLoggerOptions(level), stream), lines };
}

describe('createRootLogger', () => {
  it.each([
    [undefined, 'info', undefined],
    ['debug', 'debug', undefined],
    [' WARN ', 'warn', undefined],
    ['silent', 'silent', undefined],
    ['loud', 'info', 'loud'],
  ])('LOG_LEVEL=%j gives level %s', async (logLevel, level, invalidLevel) => {
    const root = await createRootLogger({ logLevel, stderrIsTerminal: false });
    expect(root.logger.level).toBe(level);
    expect(root.invalidLevel).toBe(invalidLevel);
    await root.flush();
  });
});

describe('the root logger', () => {
  it('writes a key rebound by a child logger once, with the child value', async () => {
    const { logger, lines } = memoryLogger('info');
    const raft = logger.child({ nodeId: 1 }).child({ component: 'raft' });
    const quorumState = raft.child({ component: 'quorum-state' });
    quorumState.info({ epoch: 3 }, 'quorum state transition');
    raft.child({ nodeId: 1, extra: { component: 'nested' } }).info('again');
    raft.info('raft line');
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines).toHaveLength(3);
    for (const line of lines) expect(repeatedKeys(line), line).toEqual([]);
    expect(JSON.parse(lines[0] as string)).toMatchObject({ nodeId: 1, component: 'quorum-state', epoch: 3 });
    expect(JSON.parse(lines[1] as string)).toMatchObject({
      component: 'raft',
      extra: { component: 'nested' },
    });
    expect(JSON.parse(lines[2] as string)).toMatchObject({ nodeId: 1, component: 'raft' });
  });

  it('detects a repeated key in a raw line', () => {
    expect(topLevelKeys('{"a":1,"b":{"a":2},"c":"x\\"y","a":3}')).toEqual(['a', 'b', 'c', 'a']);
  });
});
