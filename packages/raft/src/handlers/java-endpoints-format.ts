/**
 * Kafka puts a request's listeners into its error messages with Java's `toString`: a
 * `HashMap<ListenerName, InetSocketAddress>`, whose iteration order follows the keys' hash
 * codes. These helpers reproduce that text so the message bytes match Kafka's.
 */

export interface ListenerAddress {
  readonly name: string;
  readonly host: string;
  readonly port: number;
}

/** Kafka's `ListenerName.normalised`: listener names compare upper-cased. */
export function normalisedListenerName(name: string): string {
  return name.toUpperCase();
}

/** Whether `names` hold `listenerName`, compared as Kafka's normalised listener names. */
export function includesListener(names: Iterable<string>, listenerName: string): boolean {
  const wanted = normalisedListenerName(listenerName);
  for (const name of names) if (normalisedListenerName(name) === wanted) return true;
  return false;
}

/**
 * `Endpoints.toString()` of `Endpoints.fromAddVoterRequest(listeners)`:
 * `Endpoints(endpoints={ListenerName(A)=host/<unresolved>:port, ...})`, in HashMap order; a
 * repeated name keeps its first place and its last address, as `HashMap.put` does.
 */
export function formatJavaEndpoints(listeners: readonly ListenerAddress[]): string {
  const byName = new Map<string, ListenerAddress>();
  for (const listener of listeners) byName.set(listener.name, listener);
  // Kafka sizes the map by the request's listener count, repeated names included.
  const capacity = javaHashMapCapacity(listeners.length, byName.size);
  const ordered = [...byName.values()]
    .map((listener, insertion) => ({ listener, insertion, bucket: bucketOf(listener.name, capacity) }))
    .sort((left, right) => left.bucket - right.bucket || left.insertion - right.insertion);
  const entries = ordered.map(
    ({ listener }) => `ListenerName(${listener.name})=${listener.host}/<unresolved>:${listener.port}`,
  );
  return `Endpoints(endpoints={${entries.join(', ')}})`;
}

/**
 * The table size of `new HashMap<>(initialCapacity)` holding `size` keys: the next power of two
 * at or above the initial capacity, doubled while the keys exceed three quarters of it.
 */
function javaHashMapCapacity(initialCapacity: number, size: number): number {
  let capacity = 1;
  while (capacity < initialCapacity) capacity *= 2;
  while (size > capacity * 0.75) capacity *= 2;
  return capacity;
}

/** `HashMap.hash(key) & (capacity - 1)` for a key whose hash code is the string's. */
function bucketOf(name: string, capacity: number): number {
  const hash = javaStringHashCode(name);
  return ((hash ^ (hash >>> 16)) & (capacity - 1)) >>> 0;
}

/** Java's `String.hashCode`: `h = 31 * h + c` over UTF-16 code units, in 32-bit arithmetic. */
function javaStringHashCode(text: string): number {
  let hash = 0;
  for (let index = 0; index < text.length; index += 1) {
    hash = (Math.imul(31, hash) + text.charCodeAt(index)) | 0;
  }
  return hash;
}
