// Starts a three-node store on 127.0.0.1 with fresh directories, prints the HTTP addresses, and
// stops every process on Ctrl-C (or SIGTERM).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KvCluster } from '../src/kv-cluster.js';

const baseDirectory = mkdtempSync(join(tmpdir(), 'kraft-kv-store-'));
const cluster = await KvCluster.start({ size: 3, baseDirectory });
console.log(`kv-store: 3 nodes, data under ${baseDirectory}`);
for (const member of cluster.members) console.log(`  node ${member.nodeId}: ${cluster.httpUrl(member)}`);
console.log('Ctrl-C stops all three.');

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await cluster.stop();
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
