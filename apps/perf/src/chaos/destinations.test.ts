import { describe, expect, it } from 'vitest';
import { checkDestinations, destinationHosts, ForeignDestinationError, ownOrigin } from './destinations.js';

const runAddresses = ['10.213.0.1', '10.213.0.2', '10.213.0.3'];
const owns = (host: string) => runAddresses.includes(host);

describe('destinations', () => {
  it('finds every host written with a port: listeners, voters, URLs', () => {
    expect(
      destinationHosts(
        'listeners=CONTROLLER://10.213.0.1:9093\ncontroller.quorum.voters=1@10.213.0.1:9093,2@10.213.0.2:9093\n{"1":"http://10.213.0.3:8080"}',
      ),
    ).toEqual(['10.213.0.1', '10.213.0.1', '10.213.0.2', '10.213.0.3']);
    expect(destinationHosts('log.dirs=/tmp/x\nnode.id=1')).toEqual([]);
  });

  it("accepts a config that names only the run's own addresses", () => {
    expect(() =>
      checkDestinations('node 1', '1@10.213.0.1:9093,2@10.213.0.2:9093 http://10.213.0.3:8080', owns),
    ).not.toThrow();
  });

  it('refuses a config with any other destination, naming it, and one with none at all', () => {
    for (const text of [
      '1@10.213.0.1:9093,2@127.0.0.1:9093',
      'http://10.213.0.4:8080',
      'http://localhost:8080',
      '1@10.213.0.10:9093',
    ]) {
      expect(() => checkDestinations('node 1', text, owns)).toThrow(ForeignDestinationError);
    }
    expect(() => checkDestinations('node 1', '1@10.213.0.1:9093,2@127.0.0.1:9093', owns)).toThrow(
      /destination 127\.0\.0\.1: not an address this runner assigned/,
    );
    expect(() => checkDestinations('node 1', 'node.id=1', owns)).toThrow(/names no destination/);
  });

  it("follows a redirect only to a node of the run's own origins", () => {
    const origins = ['http://10.213.0.1:8080', 'http://10.213.0.2:8080'];
    expect(ownOrigin('http://10.213.0.2:8080/kv/k0?linearizable', origins)).toBe('http://10.213.0.2:8080');
    expect(ownOrigin('http://10.213.0.2:9093/kv/k0', origins)).toBeUndefined();
    expect(ownOrigin('http://192.0.2.1:8080/kv/k0', origins)).toBeUndefined();
    expect(ownOrigin('https://10.213.0.1:8080/kv/k0', origins)).toBeUndefined();
    expect(ownOrigin('/kv/k0', origins)).toBeUndefined();
  });
});
