import { KRaftError } from '@kraft/protocol';
import type { Logger } from 'pino';
import { parseCommandLine, reportHelpOrUsageError } from './cli/command-line.js';
import { type RunningServer, startServer } from './compose.js';
import { ConfigError } from './config/config-error.js';
import { loadServerConfig } from './config/load-server-config.js';
import { suggestKnownKey } from './config/server-config.js';
import { createRootLogger } from './logging/create-root-logger.js';

/** What the process gives the server: its streams, environment and signals. */
export interface ProcessBindings {
  readonly environment: Readonly<Record<string, string | undefined>>;
  readonly stdoutLine: (line: string) => void;
  readonly stderrText: (text: string) => void;
  readonly stderrIsTerminal: boolean;
  /** Registers a handler for SIGINT and SIGTERM. */
  readonly onStopSignal: (handler: (signal: string) => void) => void;
  /** Registers a handler for an exception or rejection nothing caught (a timer callback's, say). */
  readonly onUncaughtError: (handler: (error: unknown) => void) => void;
}

export const FATAL_EXIT_CODE = 1;
/** The leader's resignation and the final flush must fit in Kafka's usual 5 s shutdown budget. */
const RAFT_SHUTDOWN_TIMEOUT_MS = 2500;
/** If a clean stop has not finished by then, something is stuck: exit non-zero rather than hang. */
const HARD_STOP_DEADLINE_MS = 4500;

/**
 * Runs the test server until it stops; resolves with the process exit code: 0 after a clean
 * stop on SIGINT/SIGTERM, 1 on a bad config or a fatal error, 2 on a bad command line.
 */
export async function runTestServer(args: readonly string[], bindings: ProcessBindings): Promise<number> {
  const parsed = parseCommandLine(args);
  if (parsed.kind !== 'run') return reportHelpOrUsageError(parsed, bindings);
  const root = await createRootLogger({
    logLevel: bindings.environment['LOG_LEVEL'],
    stderrIsTerminal: bindings.stderrIsTerminal,
  });
  const logger = root.logger;
  if (root.invalidLevel !== undefined)
    logger.warn({ logLevel: root.invalidLevel }, 'unknown LOG_LEVEL, using info');
  try {
    return await runUntilStopped(parsed.options, bindings, logger);
  } catch (error) {
    logFatal(logger, error);
    return FATAL_EXIT_CODE;
  } finally {
    await root.flush();
  }
}

async function runUntilStopped(
  options: Parameters<typeof startServer>[0]['commandLine'],
  bindings: ProcessBindings,
  rootLogger: Logger,
): Promise<number> {
  const { config, unknownKeys } = loadServerConfig(options.configPath);
  const logger = rootLogger.child({ nodeId: config.nodeId });
  for (const key of unknownKeys) warnUnknownKey(logger, key);
  logger.info(
    {
      config: options.configPath,
      directoryId: options.replicaDirectoryId?.toString() ?? null,
      requireFormatted: options.requireFormatted === true,
      throughput: options.throughputRecordsPerSecond,
      recordSize: options.recordSizeBytes,
      historyFile: options.historyFile ?? null,
    },
    'starting raft server',
  );
  const statsIntervalMs = statsIntervalFromEnvironment(bindings.environment, logger);
  const server = await startServer({
    config,
    commandLine: options,
    logger,
    writeStatsLine: bindings.stdoutLine,
    ...(statsIntervalMs === undefined ? {} : { statsIntervalMs }),
  });
  return waitForStop(server, bindings, logger);
}

function waitForStop(server: RunningServer, bindings: ProcessBindings, logger: Logger): Promise<number> {
  return new Promise<number>((resolve) => {
    let stopping = false;
    // Kafka's ProcessTerminatingFaultHandler: an error nothing handled ends the process, logged.
    bindings.onUncaughtError((error) => {
      logFatal(logger, error);
      resolve(FATAL_EXIT_CODE);
    });
    bindings.onStopSignal((signal) => {
      if (stopping) return;
      stopping = true;
      logger.info({ signal }, 'shutting down');
      const deadline = setTimeout(() => {
        logger.error({ deadlineMs: HARD_STOP_DEADLINE_MS }, 'shutdown did not finish in time');
        resolve(FATAL_EXIT_CODE);
      }, HARD_STOP_DEADLINE_MS);
      deadline.unref();
      server.shutdown(RAFT_SHUTDOWN_TIMEOUT_MS).then(
        () => {
          clearTimeout(deadline);
          logger.info('raft server stopped cleanly');
          resolve(0);
        },
        (error: unknown) => {
          clearTimeout(deadline);
          logFatal(logger, error);
          resolve(FATAL_EXIT_CODE);
        },
      );
    });
    server.stopped.then(
      () => {
        if (!stopping) {
          logger.error('raft driver stopped without a shutdown request');
          resolve(FATAL_EXIT_CODE);
        }
      },
      (error: unknown) => {
        logFatal(logger, error);
        resolve(FATAL_EXIT_CODE);
      },
    );
  });
}

/** Kafka's "supplied but not used" warning, with the known key the operator probably meant. */
function warnUnknownKey(logger: Logger, key: string): void {
  const didYouMean = suggestKnownKey(key);
  const unused = `The configuration '${key}' was supplied but is not used`;
  if (didYouMean === undefined) logger.warn({ key }, unused);
  else logger.warn({ key, didYouMean }, `${unused}; did you mean '${didYouMean}'?`);
}

/**
 * `KRAFT_STATS_INTERVAL_MS` shortens Kafka's 5 s stats interval (integration tests use it to see
 * progress sooner); anything but a positive integer is ignored with a warning.
 */
function statsIntervalFromEnvironment(
  environment: ProcessBindings['environment'],
  logger: Logger,
): number | undefined {
  const text = environment['KRAFT_STATS_INTERVAL_MS'];
  if (text === undefined || text === '') return undefined;
  const value = Number(text);
  if (Number.isSafeInteger(value) && value > 0) return value;
  logger.warn({ KRAFT_STATS_INTERVAL_MS: text }, 'ignoring KRAFT_STATS_INTERVAL_MS: not a positive integer');
  return undefined;
}

function logFatal(logger: Logger, error: unknown): void {
  if (ConfigError.isConfigError(error)) {
    logger.fatal({ key: error.key, value: error.value }, error.message);
  } else if (KRaftError.isInstance(error)) {
    logger.fatal(
      { err: error, code: error.code },
      `Exiting raft server due to fatal exception: ${error.message}`,
    );
  } else {
    logger.fatal({ err: error }, 'Exiting raft server due to fatal exception');
  }
}
