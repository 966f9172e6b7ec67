/**
 * The chaos tier never lets a process it starts talk to anything but the addresses of its own
 * run: every destination in a node's config or environment, and every URL a client is given or
 * redirected to, is checked against the run's address list first.
 */

/** Each host written with a port in `text`: `host:port`, URLs, Kafka's `id@host:port` voters. */
export function destinationHosts(text: string): string[] {
  return [...text.matchAll(/([A-Za-z0-9.-]+):\d+/g)].map(([, host]) => host as string);
}

/** A destination outside the run's own addresses: the process is not started (or the request not sent). */
export class ForeignDestinationError extends Error {
  override readonly name = 'ForeignDestinationError';
}

/**
 * Throws ForeignDestinationError for the first destination in `text` that `owns` refuses, and
 * when `text` names no destination at all (a config without any would be a runner bug too).
 */
export function checkDestinations(what: string, text: string, owns: (host: string) => boolean): void {
  const hosts = destinationHosts(text);
  if (hosts.length === 0)
    throw new ForeignDestinationError(`refusing to start ${what}: it names no destination`);
  const foreign = hosts.find((host) => !owns(host));
  if (foreign !== undefined) {
    throw new ForeignDestinationError(
      `refusing to start ${what} with destination ${foreign}: not an address this runner assigned`,
    );
  }
}

/**
 * The origin (`http://host:port`) of `url` when it is one of `origins`, else undefined: a client
 * follows a redirect only to a node of its own run.
 */
export function ownOrigin(url: string, origins: readonly string[]): string | undefined {
  let origin: string;
  try {
    origin = new URL(url).origin;
  } catch {
    return undefined;
  }
  return origins.includes(origin) ? origin : undefined;
}
