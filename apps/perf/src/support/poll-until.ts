import { setTimeout as sleep } from 'node:timers/promises';

/** `pollUntil` ran out of time; what it waited for is in the message. */
export class PollTimeoutError extends Error {
  override readonly name: string = 'PollTimeoutError';
}

export interface PollOptions {
  readonly intervalMs: number;
  /** Runs before each look at the condition; throws to give up at once (a node died, say). */
  readonly check?: () => void;
}

/**
 * Resolves once `condition` holds, looking every `intervalMs`; rejects with a PollTimeoutError
 * when it still does not hold after `timeoutMs`, or with whatever `check` throws.
 */
export async function pollUntil(
  what: string,
  timeoutMs: number,
  condition: () => boolean,
  options: PollOptions,
): Promise<void> {
  const deadlineMs = performance.now() + timeoutMs;
  for (;;) {
    options.check?.();
    if (condition()) return;
    if (performance.now() >= deadlineMs) {
      throw new PollTimeoutError(`timed out after ${timeoutMs} ms waiting for ${what}`);
    }
    await sleep(options.intervalMs);
  }
}
