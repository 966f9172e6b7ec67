import { execFileSync } from 'node:child_process';
import { closeSync, createReadStream, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

/** The `index` of every whole JSON line read so far. */
function indexesIn(chunks: readonly Buffer[]): number[] {
  return Buffer.concat(chunks)
    .toString('utf8')
    .split('\n')
    .filter((line) => line.endsWith('}'))
    .map((line) => (JSON.parse(line) as { index: number }).index);
}

describe('createRootLogger', () => {
  it.each([
    [undefined, 'info', undefined],
    ['debug', 'debug', undefined],
    [' WARN ', 'warn', undefined],
    ['silent', 'silent', undefined],
    ['loud', 'info', 'loud'],
  ])('LOG_LEVEL=%j gives level %s', async (logLevel, level, invalidLevel) => {
    const root = createRootLogger({ logLevel, stderrIsTerminal: false });
    expect(root.logger.level).toBe(level);
    expect(root.invalidLevel).toBe(invalidLevel);
    await root.flush();
  });

  it('flush() resolves once every line is written, in order, a write in flight included', async () => {
    // A FIFO whose reader drains it slowly, like a parent process reading a busy node's stderr:
    // the writes queue behind a full pipe, so one is in flight when flush() is called. (The
    // flushSync used before wrote past it from the event loop, and here blocked it for good.)
    const directory = mkdtempSync(join(tmpdir(), 'kraft-root-logger-'));
    const path = join(directory, 'stderr');
    execFileSync('mkfifo', [path]);
    const fd = openSync(path, 'r+');
    const reader = createReadStream(path, { highWaterMark: 4096 });
    const chunks: Buffer[] = [];
    reader.on('data', (chunk) => {
      chunks.push(chunk as Buffer);
      reader.pause();
      setTimeout(() => reader.resume(), 1);
    });
    try {
      const root = createRootLogger({ logLevel: 'info', stderrIsTerminal: false, fd });
      const count = 600;
      for (let index = 0; index < count; index += 1)
        root.logger.info({ index, pad: 'x'.repeat(512) }, 'line');
      await root.flush();
      const expected = Array.from({ length: count }, (_, index) => index);
      await expect.poll(() => indexesIn(chunks).length, { timeout: 10_000 }).toBe(count);
      expect(indexesIn(chunks)).toEqual(expected);
    } finally {
      reader.destroy();
      closeSync(fd);
      rmSync(directory, { recursive: true, force: true });
    }
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
