import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HistoryError, operationsFromEvents } from '@kraft/linearizability';
import { afterEach, describe, expect, it } from 'vitest';
import { KvHistoryFile, readKvHistory } from './kv-history.js';

describe('KvHistoryFile', () => {
  const directories: string[] = [];
  afterEach(() => {
    for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
  });
  function historyPath(): string {
    const directory = mkdtempSync(join(tmpdir(), 'kraft-kv-history-'));
    directories.push(directory);
    return join(directory, 'history.jsonl');
  }

  it('writes each event as one JSON line at once, which reads back as the recorded events', async () => {
    const path = historyPath();
    let time = 100;
    const history = new KvHistoryFile(path, { clock: () => time++ });
    const put = history.recorder.invoke(0, { type: 'put', key: 'k', value: '0-0' });
    const get = history.recorder.invoke(1, { type: 'get', key: 'k' });
    // On disk before anything completes: a killed client loses nothing it recorded.
    expect(readFileSync(path, 'utf8').split('\n')).toHaveLength(3);
    put.ok(null);
    get.ok({ value: '0-0' });
    history.recorder.invoke(2, { type: 'cas', key: 'k', expected: '0-0', value: '2-0' }).info();
    history.recorder.invoke(3, { type: 'delete', key: 'k' }).fail();
    history.close();
    const events = await readKvHistory(path);
    expect(events).toEqual(history.recorder.events());
    expect(events.map((event) => event.type)).toEqual([
      'invoke',
      'invoke',
      'ok',
      'ok',
      'invoke',
      'info',
      'invoke',
      'fail',
    ]);
    expect(events[0]).toEqual({
      type: 'invoke',
      id: 0,
      clientId: 0,
      time: 100,
      input: { type: 'put', key: 'k', value: '0-0' },
    });
  });

  it('appends to an existing file and leaves operations never completed as unknown outcomes', async () => {
    const path = historyPath();
    const history = new KvHistoryFile(path);
    history.recorder.invoke(0, { type: 'put', key: 'k', value: '0-0' });
    history.close();
    const operations = operationsFromEvents(await readKvHistory(path));
    expect(operations).toHaveLength(1);
    expect(operations[0]).toMatchObject({ return: undefined, output: undefined });
    expect(() => history.recorder.invoke(0, { type: 'get', key: 'k' })).toThrow(/closed/);
  });

  it('refuses a history whose inputs or outputs are not the key-value model’s', async () => {
    const path = historyPath();
    writeFileSync(
      path,
      `${JSON.stringify({ type: 'invoke', id: 0, clientId: 0, time: 1, input: { type: 'incr' } })}\n`,
    );
    await expect(readKvHistory(path)).rejects.toBeInstanceOf(HistoryError);
    writeFileSync(
      path,
      [
        JSON.stringify({ type: 'invoke', id: 0, clientId: 0, time: 1, input: { type: 'get', key: 'k' } }),
        JSON.stringify({ type: 'ok', id: 0, clientId: 0, time: 2, output: { value: 3 } }),
        '',
      ].join('\n'),
    );
    await expect(readKvHistory(path)).rejects.toThrow(/malformed output/);
  });
});
