import { describe, expect, it } from 'vitest';
import { formatJavaEndpoints } from './java-endpoints-format.js';

describe('formatJavaEndpoints', () => {
  it("lists listeners in Java's HashMap order (checked against the JDK) and keeps a repeated name's first place with its last address", () => {
    const names = ['CONTROLLER', 'PLAINTEXT', 'SSL', 'EXTERNAL', 'INTERNAL', 'SSL'];
    const listeners = names.map((name, index) => ({ name, host: 'h', port: index }));
    // new HashMap<>(5) with these keys iterates INTERNAL, PLAINTEXT, CONTROLLER, EXTERNAL, SSL.
    expect(formatJavaEndpoints(listeners)).toBe(
      'Endpoints(endpoints={ListenerName(INTERNAL)=h/<unresolved>:4, ListenerName(PLAINTEXT)=h/<unresolved>:1, ' +
        'ListenerName(CONTROLLER)=h/<unresolved>:0, ListenerName(EXTERNAL)=h/<unresolved>:3, ' +
        'ListenerName(SSL)=h/<unresolved>:5})',
    );
  });

  it('sizes the table by the request count, repeated names included, as new HashMap<>(listeners.size()) does', () => {
    // HashMap(5) has 8 buckets: "A" (65) is in bucket 1 and "E" (69) in bucket 5. A table sized
    // for the two distinct names (4 buckets) would put both in bucket 1, in put order: E first.
    // Checked against the JDK: {A=h/<unresolved>:3, E=h/<unresolved>:4}.
    const listeners = ['E', 'A', 'E', 'A', 'E'].map((name, index) => ({ name, host: 'h', port: index }));
    expect(formatJavaEndpoints(listeners)).toBe(
      'Endpoints(endpoints={ListenerName(A)=h/<unresolved>:3, ListenerName(E)=h/<unresolved>:4})',
    );
  });

  it('prints an empty map as {}', () => {
    expect(formatJavaEndpoints([])).toBe('Endpoints(endpoints={})');
  });
});
