import { describe, expect, it } from 'vitest';
import { InvalidConfigurationError } from '../errors/invalid-configuration-error.js';
import {
  checkInstance,
  checkInteger,
  checkKnownKeys,
  checkMethods,
  checkOptionsObject,
  describeValue,
} from './option-checks.js';

class Sealed {
  private constructor(readonly value: number) {}
  static make(): Sealed {
    return new Sealed(1);
  }
}

describe('option checks', () => {
  it('describes values the way a message needs them', () => {
    expect(describeValue(Number.NaN)).toBe('NaN');
    expect(describeValue('5')).toBe("'5'");
    expect(describeValue({})).toBe('a plain object');
    expect(describeValue(Object.create(null))).toBe('a plain object');
    expect(describeValue([])).toBe('an array');
    expect(describeValue(Sealed.make())).toBe('a Sealed');
    expect(describeValue(() => 0)).toBe('a function');
    expect(describeValue(undefined)).toBe('undefined');
  });

  it('checks integers, instances (private constructors too), methods, keys and the options object', () => {
    expect(checkInteger('n', 3, { minimum: 1, maximum: 3 })).toBe(3);
    expect(() => checkInteger('n', 4, { minimum: 1, maximum: 3 })).toThrow(
      'n must be an integer in [1, 3], got 4',
    );
    expect(() => checkInteger('n', 2n, { minimum: 1 })).toThrow(InvalidConfigurationError);
    expect(checkInstance('s', Sealed.make(), Sealed).value).toBe(1);
    expect(() => checkInstance('s', { value: 1 }, Sealed)).toThrow('s must be a Sealed, got a plain object');
    expect(() => checkMethods('p', { a: () => 0, b: 1 }, ['a', 'b'])).toThrow('p must have the methods b');
    expect(() => checkKnownKeys('o', { known: 1, typo: 2 }, ['known'])).toThrow(
      'o has unknown option(s) typo; known: known',
    );
    expect(() => checkOptionsObject('o', [])).toThrow('o must be an options object, got an array');
  });
});
