import { describe, expect, it } from 'vitest';
import { Endpoints } from './endpoints.js';

describe('Endpoints.addressFor', () => {
  const endpoints = Endpoints.fromEntries([
    ['CONTROLLER', { host: 'a', port: 9093 }],
    ['SSL', { host: 'b', port: 9094 }],
  ]);

  it("is the address on the caller's listener when the node has one", () => {
    expect(endpoints.addressFor('SSL')).toEqual({ host: 'b', port: 9094 });
  });

  it('falls back to the first listener (a static voter entry names none)', () => {
    expect(endpoints.addressFor('PLAINTEXT')).toEqual({ host: 'a', port: 9093 });
  });

  it('is undefined for a node with no endpoint', () => {
    expect(Endpoints.EMPTY.addressFor('CONTROLLER')).toBeUndefined();
  });
});
