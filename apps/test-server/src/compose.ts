/**
 * The composition root: the only place real implementations are wired together (CONVENTIONS
 * C2). config → bootstrap checkpoint (which quorum: static or dynamic, ADR 0048) → log-dir lock → TcpNetworkChannel (listener bound
 * first, + outbound client) → storage format check → RaftLog on NodeFileSystem → FileQuorumStateStore → KafkaRaftClient →
 * RaftDriver → workload and listener → stats. DescribeQuorum is answered by the raft client
 * besides Kafka's test-server APIs.
 */
import { randomInt } from 'node:crypto';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { FlushedDataLossError, LogConfig, LogDirectoryLock, type LostFlushedDataPolicy } from '@kraft/log';
import type { Uuid } from '@kraft/protocol';
import {
  createSystemRandom,
  Endpoints,
  ensureLogDirectoryFormatted,
  FileQuorumStateStore,
  KafkaRaftClient,
  lostFlushedDataPolicyFor,
  openKafkaRaftLog,
  quorumStateStorePath,
  RaftDriver,
  type RaftLog,
  type Random,
  SystemTime,
  VoterSet,
} from '@kraft/raft';
import { NodeFileSystem } from '@kraft/records';
import { type ListenerSpec, TcpNetworkChannel, TlsContext } from '@kraft/transport-tcp';
import type { Logger } from 'pino';
import { type CommandLineOptions, MAXIMUM_SEED } from './cli/command-line.js';
import { ConfigError } from './config/config-error.js';
import { type QuorumMode, resolveQuorumMode } from './config/quorum-mode.js';
import type { ServerConfig, VoterEndpoint } from './config/server-config.js';
import { metricsEndpoint } from './metrics/metrics-config.js';
import { MetricsServer } from './metrics/metrics-server.js';
import {
  PERFORMANCE_TEST_TOPIC_ID,
  PERFORMANCE_TEST_TOPIC_NAME,
  PERFORMANCE_TEST_TOPIC_PARTITION,
  TEST_SERVER_CLUSTER_ID,
} from './performance-test-topic.js';
import type { CommitStats } from './stats/commit-stats.js';
import { STATS_INTERVAL_MS, StatsReporter } from './stats/stats-reporter.js';
import { logDirectoryClusterId, readServerBootstrapCheckpoint } from './storage/server-log-directory.js';
import { RaftWorkloadGenerator } from './workload/raft-workload-generator.js';
import { openHistoryFile, WorkloadHistory } from './workload/workload-history.js';
import { WorkloadListener } from './workload/workload-listener.js';
import { timerScheduler } from './workload/workload-scheduler.js';

/**
 * Appended-but-uncommitted bytes the workload allows itself (TARGETS §4.6: beyond a few MiB,
 * latency only measures the queue).
 */
const MAX_OUTSTANDING_WORKLOAD_BYTES = 4 * 1024 * 1024;
/** A drawn seed leaves room for the epochs added to it (each epoch a node leads draws from seed + epoch). */
const MAX_EPOCH_OFFSET = 1_000_000;
/** The client's inbound queue bound (the one queue once the driver is attached) matches the channel's. */
const MAX_QUEUED_INBOUND_MESSAGES = 65_536;

export interface ServerOptions {
  readonly config: ServerConfig;
  readonly commandLine: CommandLineOptions;
  readonly logger: Logger;
  /** Where stats lines go (stdout in production). */
  readonly writeStatsLine: (line: string) => void;
  /** Stats interval; Kafka's 5 s unless a test asks otherwise. */
  readonly statsIntervalMs?: number;
}

export interface RunningServer {
  /** The port the controller listener is bound to (useful when the config asked for port 0). */
  readonly port: number;
  /** Settles when the raft driver stops: resolves after a clean shutdown, rejects on a fatal error. */
  readonly stopped: Promise<void>;
  /** Leader resigns, the log is flushed and closed, the listener closes. */
  shutdown(timeoutMs: number): Promise<void>;
}

/**
 * Reads the bootstrap checkpoint to learn which quorum the node runs (refusing one it cannot run)
 * before touching the dir, then locks the log directory (a second server on it stops here, before
 * anything else is read) and starts the node on it; the lock is released when the server shuts
 * down or fails to start.
 */
export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const fileSystem = new NodeFileSystem();
  const checkpoint = readServerBootstrapCheckpoint(
    fileSystem,
    options.config.metadataLogDir,
    PERFORMANCE_TEST_TOPIC_PARTITION,
  );
  const quorumMode = resolveQuorumMode(options.config, checkpoint);
  logQuorumMode(options, quorumMode);
  const lock = LogDirectoryLock.acquire(fileSystem, options.config.metadataLogDir);
  try {
    const server = await startLockedServer(options, quorumMode, fileSystem, lock);
    const shutdown = async (timeoutMs: number): Promise<void> => {
      try {
        await server.shutdown(timeoutMs);
      } finally {
        lock.release();
      }
    };
    return { ...server, shutdown };
  } catch (error) {
    lock.release();
    throw error;
  }
}

/**
 * Binds the listener, then formats or checks the log directory, opens the log and wires the
 * node; the node runs on return.
 */
async function startLockedServer(
  options: ServerOptions,
  quorumMode: QuorumMode,
  fileSystem: NodeFileSystem,
  lock: LogDirectoryLock,
): Promise<RunningServer> {
  const { config, commandLine, logger } = options;
  const time = new SystemTime();
  const { random, seed } = createSystemRandom();
  const channel = createChannel(config, logger, time, random);
  // The port first: a node refused for a port in use leaves a fresh log dir as it found it (no
  // meta.properties, no segment), so the operator fixes the port and starts again unchanged.
  const port = await startListening(channel, config);
  logger.info({ listener: config.controllerListener.name, port, seed }, 'listening');
  // Bound before the disk is touched too; it answers 503 until the driver exists.
  const metricsServer = await startMetricsServer(config, commandLine, logger, channel);
  let opened: FormattedLog;
  try {
    opened = openFormattedLog(config, quorumMode, commandLine, fileSystem, lock, logger);
  } catch (error) {
    await Promise.all([channel.close(), metricsServer?.close()]);
    throw error;
  }
  const { log, identity } = opened;
  const quorumStateStore = new FileQuorumStateStore({
    fileSystem,
    path: quorumStateStorePath(config.metadataLogDir, PERFORMANCE_TEST_TOPIC_PARTITION),
  });
  const client = createClient({
    config,
    quorumMode,
    port,
    identity,
    logger,
    log,
    channel,
    random,
    quorumStateStore,
  });
  const driver = new RaftDriver({
    client,
    log,
    network: channel,
    quorumStateStore,
    time,
    logger,
  });
  const history =
    commandLine.historyFile === undefined
      ? undefined
      : new WorkloadHistory(config.nodeId, openHistoryFile(commandLine.historyFile));
  client.initialize(time.milliseconds());
  const stopped = driver.start();
  // The driver takes inbound traffic directly; a request it refuses (queue full) closes that
  // connection, so the peer sees BROKER_NOT_AVAILABLE instead of waiting for a timeout.
  channel.attach(driver);
  // What only the workload, the stats and the metrics endpoint use (HdrHistogram, prom-client,
  // the metadata layer) loads now, while the node waits out its first election timeout, rather
  // than before its timer starts (ADR 0046). A listener registered now still gets every commit
  // and the current leader at the client's next poll. The server runs (and takes a stop signal)
  // meanwhile; if those modules cannot load, `stopped` rejects with the error, unless a stop was
  // asked for first: a terminal's Ctrl-C reaches the whole process group, so under tsx the
  // transform service may already be gone, and a server that is stopping needs none of them.
  let stopRequested = false;
  const attached = attachDeferred(options, client, driver, metricsServer, history);
  attached.catch(() => history?.close());
  const attachedUnlessStopping = attached.then(
    () => undefined,
    (error: unknown) => {
      if (!stopRequested) throw error;
      options.logger.info({ err: error }, 'the workload and metrics modules did not load: stopping');
    },
  );
  return {
    port,
    stopped: Promise.all([stopped, attachedUnlessStopping]).then(() => undefined),
    async shutdown(timeoutMs) {
      stopRequested = true;
      const parts = await attached.catch(() => undefined);
      parts?.reporter.stop();
      parts?.workload.close();
      channel.beginShutdown();
      try {
        await driver.shutdown(timeoutMs);
      } finally {
        await Promise.all([channel.close(), metricsServer?.close()]);
      }
    },
  };
}

/** The metrics endpoint's exporter, the workload and the stats reporter, which then starts. */
async function attachDeferred(
  options: ServerOptions,
  client: KafkaRaftClient,
  driver: RaftDriver,
  metricsServer: MetricsServer | undefined,
  history: WorkloadHistory | undefined,
): Promise<{ workload: AttachedWorkload; reporter: StatsReporter }> {
  await serveMetrics(metricsServer, driver, options.config.nodeId);
  const parts = await attachWorkload(options, client, driver, history);
  parts.reporter.start();
  return parts;
}

/** Who the node is on disk: what its log dir's meta.properties holds. */
interface NodeIdentity {
  readonly clusterId: string;
  readonly directoryId: Uuid;
}

interface ClientParts {
  readonly config: ServerConfig;
  readonly quorumMode: QuorumMode;
  /** The port the controller listener is bound to. */
  readonly port: number;
  readonly identity: NodeIdentity;
  readonly logger: Logger;
  readonly log: RaftLog;
  readonly channel: TcpNetworkChannel;
  readonly random: Random;
  readonly quorumStateStore: FileQuorumStateStore;
}

function createClient(parts: ClientParts): KafkaRaftClient {
  const { config, quorumMode } = parts;
  const listener = config.controllerListener;
  return new KafkaRaftClient({
    nodeId: config.nodeId,
    directoryId: parts.identity.directoryId,
    clusterId: parts.identity.clusterId,
    voters: VoterSet.fromQuorumVotersConfig(
      config.quorum.voters.map(formatVoter).join(','),
      config.controllerListener.name,
    ),
    log: parts.log,
    network: parts.channel,
    quorumStateStore: parts.quorumStateStore,
    random: parts.random,
    config: quorumSettings(config),
    listenerName: listener.name,
    kraftVersion: quorumMode.kraftVersion,
    // Kafka: bootstrap servers, when set, are where an observer asks who leads (else the voters).
    bootstrapServers: config.quorum.bootstrapServers,
    // controller.quorum.auto.join.enable: at kraft.version 1 an observer adds itself as a voter.
    autoJoin: config.quorum.autoJoinEnable,
    // A dynamic quorum's leader tells observers where it is (Fetch NodeEndpoints,
    // BeginQuorumEpoch) from its own listener: no static voter entry holds it. At kraft.version 0
    // the static entry does, as before.
    ...(quorumMode.kraftVersion === 1
      ? {
          localEndpoints: Endpoints.fromEntries([
            [listener.name, { host: listener.host === '' ? 'localhost' : listener.host, port: parts.port }],
          ]),
        }
      : {}),
    // The client's default RPC versions are the newest (Fetch v18, KIP-1166: the follower's high
    // watermark lets the leader answer at once instead of parking the fetch until the next batch).
    topic: { name: PERFORMANCE_TEST_TOPIC_NAME, topicId: PERFORMANCE_TEST_TOPIC_ID },
    maxQueuedMessages: MAX_QUEUED_INBOUND_MESSAGES,
    logger: parts.logger,
  });
}

/** What compose stops when the server stops: the generator, and what it prints at the end. */
interface AttachedWorkload {
  close(): void;
}

/** The metrics endpoint starts answering from the driver's metrics (it answers 503 until then). */
async function serveMetrics(
  metricsServer: MetricsServer | undefined,
  driver: RaftDriver,
  nodeId: number,
): Promise<void> {
  if (metricsServer === undefined) return;
  const { driverMetricsSource, RaftMetricsExporter } = await import('./metrics/raft-metrics-exporter.js');
  metricsServer.serve(new RaftMetricsExporter({ source: driverMetricsSource(driver, nodeId) }));
}

/** The workload (Kafka's raft workload or the metadata workload) on the client, and the stats reporter. */
async function attachWorkload(
  options: ServerOptions,
  client: KafkaRaftClient,
  driver: RaftDriver,
  history: WorkloadHistory | undefined,
): Promise<{ workload: AttachedWorkload; reporter: StatsReporter }> {
  const { CommitStats } = await import('./stats/commit-stats.js');
  const stats = new CommitStats();
  const workload =
    options.commandLine.workload === 'metadata'
      ? await attachMetadataWorkload(options, client, driver, stats)
      : await attachRaftWorkload(options, client, driver, stats, history);
  // 10 ms resolution: the sampling timer costs nothing at that rate, and P6's bar is 20 ms.
  const eventLoopDelay = monitorEventLoopDelay({ resolution: 10 });
  const reporter = new StatsReporter({
    stats,
    status: () => {
      const state = driver.state();
      return {
        role: state.raft?.role ?? state.role,
        epoch: state.epoch,
        leaderId: state.leaderId,
        highWatermark: state.highWatermark,
        logEndOffset: state.logEndOffset,
      };
    },
    writeLine: options.writeStatsLine,
    nowMs: () => performance.now(),
    eventLoopDelay,
    ...(options.statsIntervalMs === undefined ? {} : { intervalMs: options.statsIntervalMs }),
  });
  return { workload, reporter };
}

/** Kafka's generator and listener; with `--print-latency-histogram`, the run's commit-latency histogram each interval and at the end. */
async function attachRaftWorkload(
  options: ServerOptions,
  client: KafkaRaftClient,
  driver: RaftDriver,
  stats: CommitStats,
  history: WorkloadHistory | undefined,
): Promise<AttachedWorkload> {
  const { config, commandLine, logger } = options;
  const workloadLogger = logger.child({ component: 'workload' });
  const generator = new RaftWorkloadGenerator({
    client: driver,
    localNodeId: config.nodeId,
    throughputRecordsPerSecond: commandLine.throughputRecordsPerSecond,
    recordSizeBytes: commandLine.recordSizeBytes,
    maxOutstandingBytes: Math.max(MAX_OUTSTANDING_WORKLOAD_BYTES, commandLine.recordSizeBytes),
    scheduler: timerScheduler,
    // RaftDriver.scheduleAppend wakes the driver itself.
    onAppended: () => {},
    logger: workloadLogger,
    ...(history === undefined ? {} : { history }),
    latencyFromIntendedSend: commandLine.latencyFromIntendedSend === true,
  });
  const cumulativeLatency =
    commandLine.printLatencyHistogram === true
      ? new (await import('./workload/cumulative-latency.js')).CumulativeLatency()
      : undefined;
  client.register(
    new WorkloadListener({
      generator,
      stats,
      nowMs: timerScheduler.nowMs,
      logger: workloadLogger,
      ...(cumulativeLatency === undefined ? {} : { cumulativeLatency }),
    }),
  );
  cumulativeLatency?.start(options.statsIntervalMs ?? STATS_INTERVAL_MS, options.writeStatsLine);
  return {
    close() {
      generator.stop();
      history?.close();
      cumulativeLatency?.stop();
    },
  };
}

/**
 * The metadata workload; SIGUSR2 stops its appends (the perf tool's request before it compares
 * the nodes' images), and its image digest is printed when the server stops.
 */
async function attachMetadataWorkload(
  options: ServerOptions,
  client: KafkaRaftClient,
  driver: RaftDriver,
  stats: CommitStats,
): Promise<AttachedWorkload> {
  const { MetadataWorkload } = await import('./metadata/metadata-workload.js');
  const { config, commandLine, logger } = options;
  const workloadLogger = logger.child({ component: 'metadata-workload' });
  const seed = commandLine.seed ?? randomInt(MAXIMUM_SEED - MAX_EPOCH_OFFSET);
  workloadLogger.info({ seed }, 'metadata workload seed');
  const workload = new MetadataWorkload({
    client,
    appender: driver,
    localNodeId: config.nodeId,
    throughputRecordsPerSecond: commandLine.throughputRecordsPerSecond,
    seed,
    maxBytesBetweenSnapshots: config.metadataLog.maxRecordBytesBetweenSnapshots,
    maxSnapshotIntervalMs: config.metadataLog.maxSnapshotIntervalMs,
    stats,
    scheduler: timerScheduler,
    statusIntervalMs: options.statsIntervalMs ?? STATS_INTERVAL_MS,
    writeLine: options.writeStatsLine,
    // A loading fault on a controller ends the process (run-test-server's uncaught-error path).
    terminate: (error) =>
      setImmediate(() => {
        throw error;
      }),
    logger: workloadLogger,
  });
  workload.start();
  const stopAppending = () => workload.stopAppending();
  process.on('SIGUSR2', stopAppending);
  return {
    close() {
      process.off('SIGUSR2', stopAppending);
      workload.close();
    },
  };
}

/** The opt-in metrics endpoint (`--metrics-port` or `kraft.metrics.port`); on failure the listener is closed. */
async function startMetricsServer(
  config: ServerConfig,
  commandLine: CommandLineOptions,
  logger: Logger,
  channel: TcpNetworkChannel,
): Promise<MetricsServer | undefined> {
  const endpoint = metricsEndpoint(config.metrics, commandLine.metricsPort);
  if (endpoint === undefined) return undefined;
  try {
    return await MetricsServer.listen(endpoint, logger);
  } catch (error) {
    await channel.close();
    throw error;
  }
}

/** Errors of `listen()` that the operator fixes in `listeners` (or by stopping what holds the port). */
const LISTEN_CONFIG_ERROR_CODES: ReadonlySet<string> = new Set(['EADDRINUSE', 'EACCES', 'EADDRNOTAVAIL']);

/** Binds the controller listener; on failure nothing is left listening. */
async function startListening(channel: TcpNetworkChannel, config: ServerConfig): Promise<number> {
  const listener = config.controllerListener;
  try {
    const bound = await channel.start();
    return bound[0]?.port ?? listener.port;
  } catch (error) {
    await channel.close();
    const code = (error as NodeJS.ErrnoException | undefined)?.code;
    if (code === undefined || !LISTEN_CONFIG_ERROR_CODES.has(code)) throw error;
    const host = listener.host.includes(':') ? `[${listener.host}]` : listener.host;
    throw new ConfigError(
      'listeners',
      `${listener.name}://${host}:${listener.port}`,
      `cannot listen on it (${code}: ${(error as Error).message})`,
    );
  }
}

interface FormattedLog {
  readonly log: RaftLog;
  readonly identity: NodeIdentity;
}

/**
 * Formats the log dir on first start (the zero cluster id, as Kafka's TestRaftServer) unless
 * `--require-formatted` says it must be formatted already; a formatted dir (by an earlier start
 * or by `kraft-storage.sh format`) gives its cluster id, and its directory id when the command
 * line names none. raft's checks refuse a dir of another node, or of another directory id than
 * the one given.
 */
function openFormattedLog(
  config: ServerConfig,
  quorumMode: QuorumMode,
  commandLine: CommandLineOptions,
  fileSystem: NodeFileSystem,
  lock: LogDirectoryLock,
  logger: Logger,
): FormattedLog {
  const directory = config.metadataLogDir;
  const { clusterId } = logDirectoryClusterId(fileSystem, directory, {
    requireFormatted: commandLine.requireFormatted === true,
    unformattedClusterId: TEST_SERVER_CLUSTER_ID,
  });
  const { formatted, directoryId } = ensureLogDirectoryFormatted(fileSystem, directory, {
    clusterId,
    nodeId: config.nodeId,
    directoryId: commandLine.replicaDirectoryId,
  });
  logger.info(
    { directory, formatted, clusterId, directoryId: directoryId.toString() },
    formatted ? 'formatted log directory' : 'log directory checked',
  );
  return {
    log: openLog(config, quorumMode, fileSystem, lock, logger),
    identity: { clusterId, directoryId },
  };
}

/** The quorum the node runs, said once at start (an operator reading the log sees which one). */
function logQuorumMode(options: ServerOptions, quorumMode: QuorumMode): void {
  const { config, logger } = options;
  const bootstrapServers = config.quorum.bootstrapServers.map((server) => `${server.host}:${server.port}`);
  if (quorumMode.kraftVersion === 0) {
    logger.info({ kraftVersion: 0, bootstrapServers }, 'static quorum: voters from controller.quorum.voters');
    return;
  }
  logger.info(
    { kraftVersion: 1, bootstrapServers, otherVoters: quorumMode.otherVoterCount ?? null },
    quorumMode.otherVoterCount === undefined
      ? 'dynamic quorum without a bootstrap checkpoint: starting as an observer, voters from the log'
      : 'dynamic quorum: voters from the bootstrap checkpoint and the log',
  );
  if (quorumMode.staticVotersIgnored) {
    logger.warn(
      { controllerQuorumVoters: config.quorum.voters.length },
      'controller.quorum.voters is set beside a kraft.version 1 bootstrap checkpoint: the voters come from the checkpoint and the log; remove it and use controller.quorum.bootstrap.servers',
    );
  }
}

/**
 * Damage below the recovery point (flushed data lost, ADR 0010): see `lostFlushedDataPolicyFor`.
 * An observer of a dynamic quorum (no checkpoint) never votes, and fetches what it lost back
 * from the leader it finds through the bootstrap servers.
 */
function lostFlushedDataPolicy(config: ServerConfig, quorumMode: QuorumMode): LostFlushedDataPolicy {
  const others = quorumMode.otherVoterCount ?? config.quorum.bootstrapServers.length;
  return lostFlushedDataPolicyFor(others, config.metadataLog.acceptFlushedDataLoss);
}

function openLog(
  config: ServerConfig,
  quorumMode: QuorumMode,
  fileSystem: NodeFileSystem,
  lock: LogDirectoryLock,
  logger: Logger,
): RaftLog {
  try {
    return openLogWithPolicy(config, quorumMode, fileSystem, lock, logger);
  } catch (error) {
    if (error instanceof FlushedDataLossError) {
      // The log's message names its own option; the operator of this server sets a config key.
      logger.error(
        { ...error.loss, override: 'internal.metadata.log.accept.flushed.data.loss=true' },
        'the metadata log lost flushed data: refusing to start. Restore the log directory from a copy that holds those offsets, or accept the loss with the override',
      );
    }
    throw error;
  }
}

function openLogWithPolicy(
  config: ServerConfig,
  quorumMode: QuorumMode,
  fileSystem: NodeFileSystem,
  lock: LogDirectoryLock,
  logger: Logger,
): RaftLog {
  const settings = config.metadataLog;
  return openKafkaRaftLog({
    dir: config.metadataLogDir,
    fileSystem,
    lock,
    logger,
    lostFlushedData: lostFlushedDataPolicy(config, quorumMode),
    topicPartition: PERFORMANCE_TEST_TOPIC_PARTITION,
    topicId: PERFORMANCE_TEST_TOPIC_ID,
    config: new LogConfig({
      internalSegmentBytes: settings.segmentBytes,
      segmentMs: settings.segmentMs,
      retentionMaxBytes: settings.maxRetentionBytes,
      retentionMs: settings.maxRetentionMs,
      maxBatchSizeInBytes: settings.maxBatchSizeBytes,
    }),
  });
}

function createChannel(
  config: ServerConfig,
  logger: Logger,
  time: SystemTime,
  random: Random,
): TcpNetworkChannel {
  const listener = config.controllerListener;
  const tls = config.controllerListenerTls;
  const listenerSpec: ListenerSpec = {
    name: listener.name,
    host: listener.host,
    port: listener.port,
    securityProtocol: tls === undefined ? 'PLAINTEXT' : 'SSL',
  };
  return new TcpNetworkChannel({
    nodeId: config.nodeId,
    listeners: [listenerSpec],
    // Kafka: controllers reach each other with the first controller listener's protocol.
    outboundSecurityProtocol: listenerSpec.securityProtocol,
    ...(tls === undefined ? {} : { tls: TlsContext.create(tls) }),
    voters: config.quorum.voters.filter((voter) => voter.nodeId !== config.nodeId),
    config: {
      socketRequestMaxBytes: config.socket.requestMaxBytes,
      ...(config.socket.connectionsMaxIdleMs > 0
        ? { connectionsMaxIdleMs: config.socket.connectionsMaxIdleMs }
        : {}),
      ...(config.quorum.requestTimeoutMs > 0 ? { requestTimeoutMs: config.quorum.requestTimeoutMs } : {}),
    },
    logger: logger.child({ component: 'transport' }),
    time,
    random,
  });
}

function quorumSettings(config: ServerConfig) {
  const quorum = config.quorum;
  return {
    electionTimeoutMs: quorum.electionTimeoutMs,
    electionBackoffMaxMs: quorum.electionBackoffMaxMs,
    fetchTimeoutMs: quorum.fetchTimeoutMs,
    appendLingerMs: quorum.appendLingerMs,
    requestTimeoutMs: quorum.requestTimeoutMs,
    retryBackoffMs: quorum.retryBackoffMs,
    fetchMaxBytes: quorum.fetchMaxBytes,
    fetchSnapshotMaxBytes: quorum.fetchSnapshotMaxBytes,
  };
}

function formatVoter(voter: VoterEndpoint): string {
  const host = voter.host.includes(':') ? `[${voter.host}]` : voter.host;
  return `${voter.nodeId}@${host}:${voter.port}`;
}
