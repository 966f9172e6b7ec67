import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  checkHistoryFile,
  checkOperations,
  HistoryError,
  type HistoryEvent,
  HistoryRecorder,
  isKvInput,
  isKvOutput,
  type KvInput,
  type KvOutput,
  kvModel,
  operationsFromEvents,
  parseHistory,
  readHistoryFile,
  serializeHistory,
  writeHistoryFile,
} from '../src/index.js';

type KvEvent = HistoryEvent<KvInput, KvOutput>;

function steppingClock(): () => number {
  let time = 0;
  return () => (time += 10);
}

describe('HistoryRecorder', () => {
  it('records invoke and completion events with times from its clock', () => {
    const recorder = new HistoryRecorder<KvInput, KvOutput>({ clock: steppingClock() });
    const write = recorder.invoke(0, { type: 'put', key: 'x', value: 'a' });
    const read = recorder.invoke(1, { type: 'get', key: 'x' });
    write.ok(null);
    read.ok({ value: 'a' });
    recorder.invoke(2, { type: 'delete', key: 'x' }).fail();
    recorder.invoke(3, { type: 'put', key: 'x', value: 'b' }).info();
    expect(recorder.events()).toEqual([
      { type: 'invoke', id: 0, clientId: 0, time: 10, input: { type: 'put', key: 'x', value: 'a' } },
      { type: 'invoke', id: 1, clientId: 1, time: 20, input: { type: 'get', key: 'x' } },
      { type: 'ok', id: 0, clientId: 0, time: 30, output: null },
      { type: 'ok', id: 1, clientId: 1, time: 40, output: { value: 'a' } },
      { type: 'invoke', id: 2, clientId: 2, time: 50, input: { type: 'delete', key: 'x' } },
      { type: 'fail', id: 2, clientId: 2, time: 60 },
      { type: 'invoke', id: 3, clientId: 3, time: 70, input: { type: 'put', key: 'x', value: 'b' } },
      { type: 'info', id: 3, clientId: 3, time: 80 },
    ]);
    expect(recorder.operations()).toEqual([
      { clientId: 0, input: { type: 'put', key: 'x', value: 'a' }, call: 10, return: 30, output: null },
      { clientId: 1, input: { type: 'get', key: 'x' }, call: 20, return: 40, output: { value: 'a' } },
      {
        clientId: 3,
        input: { type: 'put', key: 'x', value: 'b' },
        call: 70,
        return: undefined,
        output: undefined,
      },
    ]);
  });

  it('never lets time go backwards and refuses a clock that is not finite', () => {
    const times = [5, 3, 8, Number.NaN];
    const recorder = new HistoryRecorder<KvInput, KvOutput>({ clock: () => times.shift()! });
    recorder.invoke(0, { type: 'get', key: 'x' });
    recorder.invoke(0, { type: 'get', key: 'x' });
    recorder.invoke(0, { type: 'get', key: 'x' });
    expect(recorder.events().map((event) => event.time)).toEqual([5, 5, 8]);
    expect(() => recorder.invoke(0, { type: 'get', key: 'x' })).toThrow(HistoryError);
  });

  it('uses a monotonic nanosecond clock by default', () => {
    const recorder = new HistoryRecorder<KvInput, KvOutput>();
    const handle = recorder.invoke(0, { type: 'get', key: 'x' });
    handle.ok({ value: null });
    const [invoke, ok] = recorder.events();
    expect(Number.isSafeInteger(invoke!.time)).toBe(true);
    expect(ok!.time).toBeGreaterThanOrEqual(invoke!.time);
  });

  it('refuses to complete an operation twice and to grow past its bound', () => {
    const recorder = new HistoryRecorder<KvInput, KvOutput>({ clock: steppingClock(), maxEvents: 3 });
    const handle = recorder.invoke(0, { type: 'get', key: 'x' });
    handle.info();
    expect(() => handle.ok({ value: null })).toThrow(/completed twice/);
    recorder.invoke(0, { type: 'get', key: 'x' });
    expect(() => recorder.invoke(0, { type: 'get', key: 'x' })).toThrow(
      expect.objectContaining({ code: 'HISTORY_TOO_LARGE' }),
    );
  });

  it('hands each event to its sink as it is recorded', () => {
    const seen: KvEvent[] = [];
    const recorder = new HistoryRecorder<KvInput, KvOutput>({
      clock: steppingClock(),
      onEvent: (event) => seen.push(event),
    });
    recorder.invoke(0, { type: 'get', key: 'x' }).ok({ value: null });
    expect(seen).toEqual(recorder.events());
  });

  it('feeds the checker: a recorded lost write is found', () => {
    const recorder = new HistoryRecorder<KvInput, KvOutput>({ clock: steppingClock() });
    recorder.invoke(0, { type: 'put', key: 'x', value: 'a' }).ok(null);
    recorder.invoke(1, { type: 'get', key: 'x' }).ok({ value: null });
    expect(checkOperations(kvModel, recorder.operations()).outcome).toBe('not-linearizable');
  });
});

describe('operationsFromEvents', () => {
  it('keeps an operation never completed as one of unknown outcome', () => {
    const events: KvEvent[] = [
      { type: 'invoke', id: 7, clientId: 1, time: 3, input: { type: 'delete', key: 'x' } },
    ];
    expect(operationsFromEvents(events)).toEqual([
      { clientId: 1, input: { type: 'delete', key: 'x' }, call: 3, return: undefined, output: undefined },
    ]);
  });

  it('refuses duplicated invocations, orphan completions and completions before their invoke', () => {
    const invoke: KvEvent = {
      type: 'invoke',
      id: 1,
      clientId: 0,
      time: 10,
      input: { type: 'get', key: 'x' },
    };
    expect(() => operationsFromEvents([invoke, invoke])).toThrow(/invoked twice/);
    expect(() => operationsFromEvents([{ type: 'fail', id: 1, clientId: 0, time: 10 }])).toThrow(
      /without a pending invoke/,
    );
    expect(() => operationsFromEvents([invoke, { type: 'info', id: 1, clientId: 0, time: 9 }])).toThrow(
      /before its invoke/,
    );
    const done: KvEvent = { type: 'ok', id: 1, clientId: 0, time: 11, output: { value: null } };
    expect(() => operationsFromEvents([invoke, done, done])).toThrow(/without a pending invoke/);
    expect(() => operationsFromEvents([invoke, done, invoke])).toThrow(/invoked twice/);
  });
});

describe('JSON lines', () => {
  const events: KvEvent[] = [
    {
      type: 'invoke',
      id: 0,
      clientId: 0,
      time: 1,
      input: { type: 'cas', key: 'x', expected: null, value: 'a' },
    },
    { type: 'ok', id: 0, clientId: 0, time: 2, output: { swapped: true } },
    { type: 'invoke', id: 1, clientId: 1, time: 3, input: { type: 'get', key: 'x' } },
    { type: 'info', id: 1, clientId: 1, time: 4 },
  ];

  it('round-trips a history, one event per line', () => {
    const text = serializeHistory(events);
    expect(text.split('\n')).toHaveLength(events.length + 1);
    expect(parseHistory(text, { isInput: isKvInput, isOutput: isKvOutput })).toEqual(events);
    expect(parseHistory(`\n${text}\n\n`)).toEqual(events);
  });

  it('names the line of a malformed event', () => {
    const good = serializeHistory(events.slice(0, 1));
    const bad = (line: string) => () =>
      parseHistory(`${good}${line}\n`, { isInput: isKvInput, isOutput: isKvOutput });
    expect(bad('{"type":')).toThrow(/history line 2: not JSON/);
    expect(bad('[1]')).toThrow(/history line 2: unknown type undefined/);
    expect(bad('{"type":"done","id":1,"clientId":0,"time":1}')).toThrow(/unknown type "done"/);
    expect(bad('{"type":"info","id":1.5,"clientId":0,"time":1}')).toThrow(/id is not an integer/);
    expect(bad('{"type":"info","id":1,"clientId":0,"time":"1"}')).toThrow(/time is not a finite number/);
    expect(bad('{"type":"invoke","id":1,"clientId":0,"time":1}')).toThrow(/invoke without input/);
    expect(bad('{"type":"invoke","id":1,"clientId":0,"time":1,"input":{"type":"put","key":"x"}}')).toThrow(
      /malformed input/,
    );
    expect(bad('{"type":"ok","id":0,"clientId":0,"time":1}')).toThrow(/ok without output/);
    expect(bad('{"type":"ok","id":0,"clientId":0,"time":1,"output":{"value":3}}')).toThrow(
      /malformed output/,
    );
    expect(bad('null')).toThrow(HistoryError);
  });

  describe('files', () => {
    let directory: string | undefined;
    afterEach(async () => {
      if (directory !== undefined) await rm(directory, { recursive: true, force: true });
    });

    it('writes and reads a history file, and refuses one over the size bound before reading it', async () => {
      directory = await mkdtemp(join(tmpdir(), 'linearizability-'));
      const path = join(directory, 'history.jsonl');
      await writeHistoryFile(path, events);
      expect(await readHistoryFile(path, { isInput: isKvInput, isOutput: isKvOutput })).toEqual(events);
      await writeFile(path, 'x'.repeat(101));
      await expect(readHistoryFile(path, { maxSizeInBytes: 100 })).rejects.toMatchObject({
        code: 'HISTORY_TOO_LARGE',
      });
    });

    it('checks a saved history again', async () => {
      directory = await mkdtemp(join(tmpdir(), 'linearizability-'));
      const path = join(directory, 'history.jsonl');
      const recorder = new HistoryRecorder<KvInput, KvOutput>({ clock: steppingClock() });
      recorder.invoke(0, { type: 'put', key: 'x', value: 'a' }).ok(null);
      recorder.invoke(1, { type: 'get', key: 'x' }).ok({ value: 'b' });
      await writeHistoryFile(path, recorder.events());
      const result = await checkHistoryFile(kvModel, path, { isInput: isKvInput, isOutput: isKvOutput });
      expect(result).toMatchObject({ outcome: 'not-linearizable', key: 'x' });
      await writeHistoryFile(path, recorder.events().slice(0, 2));
      expect((await checkHistoryFile(kvModel, path)).ok).toBe(true);
    });
  });
});

describe('key-value validators', () => {
  it('accept the operations of the model and nothing else', () => {
    expect(isKvInput({ type: 'cas', key: 'k', expected: 'a', value: null })).toBe(true);
    expect(isKvInput({ type: 'delete', key: 'k' })).toBe(true);
    expect(isKvInput({ type: 'put', key: 'k', value: null })).toBe(false);
    expect(isKvInput({ type: 'cas', key: 'k', expected: 1, value: 'a' })).toBe(false);
    expect(isKvInput({ type: 'get', key: 1 })).toBe(false);
    expect(isKvInput({ type: 'scan', key: 'k' })).toBe(false);
    expect(isKvInput('get')).toBe(false);
    expect(isKvOutput(null)).toBe(true);
    expect(isKvOutput({ value: null })).toBe(true);
    expect(isKvOutput({ swapped: 'yes' })).toBe(false);
    expect(isKvOutput(3)).toBe(false);
  });
});
