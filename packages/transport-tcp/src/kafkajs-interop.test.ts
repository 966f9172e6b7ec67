import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../test/socket-harness.js';
import { kraftApiRegistry } from './api-registry.js';

// kafkajs 2.2.4 is CommonJS without an exports map or deep-path types: load its broker layer directly.
const require = createRequire(import.meta.url);

interface KafkaJsBroker {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  apiVersions(): Promise<Record<number, { minVersion: number; maxVersion: number }>>;
  versions: Record<number, { minVersion: number; maxVersion: number }> | null;
}

type BrokerConstructor = new (options: { connectionPool: unknown; logger: unknown }) => KafkaJsBroker;
type ConnectionPoolConstructor = new (options: Record<string, unknown>) => unknown;

const Broker = require('kafkajs/src/broker') as BrokerConstructor;
const ConnectionPool = require('kafkajs/src/network/connectionPool') as ConnectionPoolConstructor;
const { createLogger, LEVELS } = require('kafkajs/src/loggers') as {
  createLogger: (options: { level: number; logCreator: () => () => void }) => unknown;
  LEVELS: { NOTHING: number };
};

describe('a real Kafka client (kafkajs 2.2.4) against our listener', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server.server.close();
  });

  it('completes ApiVersions and reads the KRaft controller API list', async () => {
    const logger = createLogger({ level: LEVELS.NOTHING, logCreator: () => () => {} });
    const connectionPool = new ConnectionPool({
      host: '127.0.0.1',
      port: server.port,
      logger,
      clientId: 'kafkajs-oracle',
      connectionTimeout: 2_000,
      requestTimeout: 2_000,
      enforceRequestTimeout: true,
      maxInFlightRequests: null,
      socketFactory: ({ host, port, onConnect }: { host: string; port: number; onConnect: () => void }) =>
        require('node:net').connect({ host, port }, onConnect),
    });
    const broker = new Broker({ connectionPool, logger });
    try {
      await broker.connect();
      const expected = Object.fromEntries(
        kraftApiRegistry()
          .versionRanges()
          .map(({ apiKey, minVersion, maxVersion }) => [apiKey, { minVersion, maxVersion }]),
      );
      expect(broker.versions).toEqual(expected);
      // A second exchange on the same connection still parses.
      expect(await broker.apiVersions()).toEqual(expected);
    } finally {
      await broker.disconnect();
    }
  });
});
