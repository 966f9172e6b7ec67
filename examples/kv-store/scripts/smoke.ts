// Starts the three-node store, writes and reads back one key through the leader, prints what it
// saw as JSON and stops. The registry test runs it compiled against the installed packages.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KvCluster } from '../src/kv-cluster.js';

const baseDirectory = mkdtempSync(join(tmpdir(), 'kraft-kv-store-smoke-'));
const cluster = await KvCluster.start({ size: 3, baseDirectory, logToFiles: true });
try {
  const leaderUrl = cluster.httpUrl(cluster.member(await cluster.waitForLeader(30_000)));
  const put = await fetch(`${leaderUrl}/kv/greeting`, { method: 'PUT', body: 'hello' });
  const cas = await fetch(`${leaderUrl}/kv/greeting/cas`, {
    method: 'POST',
    body: JSON.stringify({ expected: 'hello', new: 'world' }),
  });
  const get = await fetch(`${leaderUrl}/kv/greeting?linearizable`);
  console.log(
    JSON.stringify({
      put: put.status,
      cas: await cas.json(),
      get: { status: get.status, value: await get.text() },
    }),
  );
} finally {
  await cluster.stop();
  rmSync(baseDirectory, { recursive: true, force: true });
}
