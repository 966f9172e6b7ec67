// Runs the wire fuzzer in its own process, so its CPU does not share the server's event loop.
// Usage: node --import tsx --conditions=@kraft/source fuzz-child.ts <port> <frames> <seed> <concurrency> <pauseMs>
import { runWireFuzz } from './wire-fuzzer.js';

const [port, frameCount, seed, concurrency, pauseBetweenConnectionsMs] = process.argv.slice(2).map(Number);
// The parent starts timing "under fuzz" round trips from this line on.
process.stdout.write('started\n');
const report = await runWireFuzz({
  port: port!,
  frameCount: frameCount!,
  seed: seed!,
  concurrency: concurrency ?? 4,
  pauseBetweenConnectionsMs: pauseBetweenConnectionsMs ?? 0,
  slowLorisConnections: 4,
  slowLorisIntervalMs: 50,
});
process.stdout.write(`${JSON.stringify(report)}\n`);
