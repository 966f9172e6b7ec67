import { Agent, request } from 'node:http';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../config/config-error.js';
import { MetricsServer, type MetricsSource } from './metrics-server.js';

const logger = pino({ level: 'silent' });
const servers: MetricsServer[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function listen(): Promise<MetricsServer> {
  const server = await MetricsServer.listen(
    { host: '127.0.0.1', port: 0, portSetting: '--metrics-port' },
    logger,
  );
  servers.push(server);
  return server;
}

interface Reply {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

/** One HTTP request (on a new connection unless `agent` keeps one alive), answered in full. */
function send(port: number, method: string, path: string, agent: Agent | false = false): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const outgoing = request({ host: '127.0.0.1', port, method, path, agent });
    outgoing.on('error', reject);
    outgoing.on('response', (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        body += chunk;
      });
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body }),
      );
    });
    outgoing.end();
  });
}

const SOURCE: MetricsSource = {
  contentType: 'text/plain; version=0.0.4; charset=utf-8',
  metrics: async () => '# TYPE up gauge\nup 1\n',
};

describe('MetricsServer', () => {
  it('answers GET /metrics with the exposition text, on the address it was given', async () => {
    const server = await listen();
    expect(server.port).toBeGreaterThan(0);
    server.serve(SOURCE);
    const reply = await send(server.port, 'GET', '/metrics');
    expect(reply).toMatchObject({ status: 200, body: '# TYPE up gauge\nup 1\n' });
    expect(reply.headers['content-type']).toBe(SOURCE.contentType);
    // Prometheus may add query parameters; the path is what counts.
    expect((await send(server.port, 'GET', '/metrics?name[]=up')).status).toBe(200);
  });

  it('answers 404 for other paths, 405 for other methods, 503 until it has something to serve', async () => {
    const server = await listen();
    expect((await send(server.port, 'GET', '/metrics')).status).toBe(503);
    server.serve(SOURCE);
    expect((await send(server.port, 'GET', '/')).status).toBe(404);
    expect((await send(server.port, 'GET', '/metrics/extra')).status).toBe(404);
    const post = await send(server.port, 'POST', '/metrics');
    expect(post.status).toBe(405);
    expect(post.headers['allow']).toBe('GET');
  });

  it('answers 500 when the metrics cannot be rendered, and keeps serving', async () => {
    const server = await listen();
    let fail = true;
    server.serve({
      contentType: SOURCE.contentType,
      metrics: async () => {
        if (fail) throw new Error('no state');
        return 'up 1\n';
      },
    });
    expect((await send(server.port, 'GET', '/metrics')).status).toBe(500);
    fail = false;
    expect((await send(server.port, 'GET', '/metrics')).status).toBe(200);
  });

  it('refuses a port in use with a ConfigError naming the setting the port came from', async () => {
    const server = await listen();
    const endpoint = { host: '127.0.0.1', port: server.port, portSetting: 'kraft.metrics.port' } as const;
    const error = await MetricsServer.listen(endpoint, logger).catch((caught: unknown) => caught);
    expect(ConfigError.isConfigError(error)).toBe(true);
    expect((error as ConfigError).key).toBe('kraft.metrics.port');
    expect((error as ConfigError).message).toContain('EADDRINUSE');
  });

  it('closes at once, open keep-alive connections included, and then refuses connections', async () => {
    const server = await listen();
    server.serve(SOURCE);
    // Prometheus keeps its connection open between scrapes.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    await send(server.port, 'GET', '/metrics', agent);
    expect(Object.values(agent.freeSockets).flat()).toHaveLength(1);
    const started = Date.now();
    await server.close();
    expect(Date.now() - started).toBeLessThan(1000);
    agent.destroy();
    await expect(send(server.port, 'GET', '/metrics')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    await server.close();
  });
});
