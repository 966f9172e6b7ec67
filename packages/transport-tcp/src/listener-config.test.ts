import { describe, expect, it } from 'vitest';
import { InvalidListenerConfigError } from './errors/invalid-listener-config-error.js';
import { parseBootstrapServers, parseListeners, selectControllerListeners } from './listener-config.js';

describe('listener configuration', () => {
  it('parses listeners with default and mapped security protocols', () => {
    expect(
      parseListeners('CONTROLLER://localhost:9093, PLAINTEXT://:9092,INTERNAL://[::1]:9094', {
        INTERNAL: 'SSL',
      }),
    ).toEqual([
      { name: 'CONTROLLER', host: 'localhost', port: 9093, securityProtocol: 'PLAINTEXT' },
      { name: 'PLAINTEXT', host: '', port: 9092, securityProtocol: 'PLAINTEXT' },
      { name: 'INTERNAL', host: '::1', port: 9094, securityProtocol: 'SSL' },
    ]);
  });

  it('rejects malformed, duplicate and out-of-range listeners', () => {
    expect(() => parseListeners('localhost:9093')).toThrow(InvalidListenerConfigError);
    expect(() => parseListeners('A://h:1,A://h:2')).toThrow(/duplicate listener A/);
    expect(() => parseListeners('A://h:70000')).toThrow(/out of range/);
    expect(() => parseListeners('A://h:1', { A: 'QUIC' })).toThrow(/unknown security protocol/);
  });

  it('selects the controller listeners in controller.listener.names order', () => {
    const listeners = parseListeners('PLAINTEXT://:9092,CONTROLLER://:9093');
    expect(selectControllerListeners(listeners, 'CONTROLLER').map((listener) => listener.port)).toEqual([
      9093,
    ]);
    expect(() => selectControllerListeners(listeners, 'MISSING')).toThrow(/not in listeners/);
  });

  it('parses controller.quorum.bootstrap.servers', () => {
    expect(parseBootstrapServers('a:1, b:2')).toEqual([
      { host: 'a', port: 1 },
      { host: 'b', port: 2 },
    ]);
  });
});
