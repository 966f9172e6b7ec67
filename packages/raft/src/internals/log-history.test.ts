import { IllegalStateError } from '@kraft/protocol';
import { describe, expect, it } from 'vitest';
import { LogHistory } from './log-history.js';

function historyOf(...offsets: number[]): LogHistory<string> {
  const history = new LogHistory<string>();
  for (const offset of offsets) history.addAt(offset, `at ${offset}`);
  return history;
}

describe('LogHistory', () => {
  it('answers nothing while empty', () => {
    const history = new LogHistory<string>();
    expect(history.valueAtOrBefore(100)).toBeUndefined();
    expect(history.lastEntry()).toBeUndefined();
    expect(history.size()).toBe(0);
  });

  it('gives the value added at the greatest offset at or before the one asked', () => {
    const history = historyOf(100, 200, 300);
    expect(history.valueAtOrBefore(99)).toBeUndefined();
    expect(history.valueAtOrBefore(100)).toBe('at 100');
    expect(history.valueAtOrBefore(199)).toBe('at 100');
    expect(history.valueAtOrBefore(200)).toBe('at 200');
    expect(history.valueAtOrBefore(299)).toBe('at 200');
    expect(history.valueAtOrBefore(300)).toBe('at 300');
    expect(history.valueAtOrBefore(1_000_000)).toBe('at 300');
    expect(history.lastEntry()).toEqual({ offset: 300, value: 'at 300' });
  });

  it('accepts the bootstrap checkpoint offset -1, and nothing below it', () => {
    const history = historyOf(-1);
    expect(history.valueAtOrBefore(-1)).toBe('at -1');
    expect(history.valueAtOrBefore(0)).toBe('at -1');
    expect(() => new LogHistory<string>().addAt(-2, 'x')).toThrow(IllegalStateError);
    expect(() => new LogHistory<string>().addAt(1.5, 'x')).toThrow(IllegalStateError);
  });

  it('refuses an offset that does not grow, and keeps what it had', () => {
    const history = historyOf(100);
    expect(() => history.addAt(100, 'again')).toThrow(IllegalStateError);
    expect(() => history.addAt(99, 'before')).toThrow(IllegalStateError);
    expect(history.lastEntry()).toEqual({ offset: 100, value: 'at 100' });
    expect(history.size()).toBe(1);
  });

  it('refuses an entry past its bound', () => {
    const history = new LogHistory<string>(2);
    history.addAt(1, 'a');
    history.addAt(2, 'b');
    expect(() => history.addAt(3, 'c')).toThrow(/full \(2 entries\)/);
  });

  it('truncateNewEntries drops the entries at and above the new log end only', () => {
    const history = historyOf(100, 200);
    history.truncateNewEntries(201);
    expect(history.lastEntry()?.offset).toBe(200);
    history.truncateNewEntries(200);
    expect(history.lastEntry()?.offset).toBe(100);
    history.truncateNewEntries(101);
    expect(history.lastEntry()?.offset).toBe(100);
    history.truncateNewEntries(100);
    expect(history.lastEntry()).toBeUndefined();
  });

  it('takes new entries again after a truncation, at offsets above the new end', () => {
    const history = historyOf(100, 200);
    history.truncateNewEntries(150);
    history.addAt(150, 'rewritten');
    expect(history.valueAtOrBefore(199)).toBe('rewritten');
    expect(history.valueAtOrBefore(149)).toBe('at 100');
  });

  it('truncateOldEntries keeps the newest entry below the new start, so every log offset still has its value', () => {
    const history = historyOf(100, 200, 300);
    history.truncateOldEntries(99);
    expect(history.size()).toBe(3);
    history.truncateOldEntries(250);
    expect(history.size()).toBe(2);
    expect(history.valueAtOrBefore(250)).toBe('at 200');
    expect(history.valueAtOrBefore(199)).toBeUndefined();
    history.truncateOldEntries(300);
    expect(history.size()).toBe(1);
    expect(history.valueAtOrBefore(300)).toBe('at 300');
    history.truncateOldEntries(1000);
    expect(history.valueAtOrBefore(1000)).toBe('at 300');
  });

  it('clear drops everything', () => {
    const history = historyOf(1, 2);
    history.clear();
    expect(history.lastEntry()).toBeUndefined();
    history.addAt(0, 'again');
    expect(history.valueAtOrBefore(5)).toBe('again');
  });

  it('finds the right entry among many (the bisection)', () => {
    const history = new LogHistory<number>();
    for (let offset = 0; offset < 1000; offset += 3) history.addAt(offset, offset);
    for (let offset = 0; offset < 1000; offset += 1) {
      expect(history.valueAtOrBefore(offset)).toBe(offset - (offset % 3));
    }
  });
});
