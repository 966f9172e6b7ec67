/**
 * The kv workload's client process, started by the runner inside the run's client namespace
 * (`ip netns exec <client ns> node ... kv-client-main.ts <config.json>`). It reads its config,
 * prints `kv-client ready` and runs the clients until a `stop` line on stdin (or the config's
 * `maxWorkloadMs`), prints `kv-client workload {counts}`, then on a `final` line does the final
 * reads and prints `kv-client final [reads]`. Every operation is in the history file as it
 * happens. stdin closing (the runner gone) ends the process.
 */
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { sendHttp } from './kv-client.js';
import { parseKvClientConfig } from './kv-client-config.js';
import { finalReads, runKvClients } from './kv-clients.js';
import { KvHistoryFile } from './kv-history.js';

/** After an operation that did not succeed: about the time a follower takes to notice a new leader. */
const BACKOFF_MS = 100;
/** Each key's final linearizable read may take this long: the quorum is settled, so it is ample. */
const FINAL_READ_TIMEOUT_MS = 30_000;
const FINAL_RETRY_PAUSE_MS = 250;

async function main(): Promise<number> {
  const configPath = process.argv[2];
  if (configPath === undefined) {
    console.error('usage: kv-client-main.ts <config.json>');
    return 2;
  }
  const config = parseKvClientConfig(readFileSync(configPath, 'utf8'));
  const history = new KvHistoryFile(config.historyPath);
  const nowMs = () => performance.now();
  const startedMs = nowMs();
  let stopRequested = false;
  // Resolves true on `final`, false when stdin closes first (no final reads then).
  const final = new Promise<boolean>((resolve) => {
    const input = createInterface({ input: process.stdin });
    input.on('line', (line) => {
      if (line === 'stop') stopRequested = true;
      if (line === 'final') resolve(true);
    });
    input.on('close', () => {
      stopRequested = true;
      resolve(false);
    });
  });
  console.log('kv-client ready');
  const summary = await runKvClients({
    config,
    recorder: history.recorder,
    send: sendHttp,
    nowMs,
    shouldStop: () => stopRequested || nowMs() - startedMs > config.maxWorkloadMs,
    backoffMs: BACKOFF_MS,
  });
  console.log(`kv-client workload ${JSON.stringify(summary)}`);
  if (await final) {
    const reads = await finalReads({
      origins: config.origins,
      keys: config.keys,
      recorder: history.recorder,
      clientId: config.clients,
      send: sendHttp,
      nowMs,
      timeoutMs: FINAL_READ_TIMEOUT_MS,
      retryPauseMs: FINAL_RETRY_PAUSE_MS,
    });
    console.log(`kv-client final ${JSON.stringify(reads)}`);
  }
  history.close();
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error('kv-client failed', error);
    process.exit(1);
  },
);
