import { type Logger, silentLogger } from '@kraft/protocol';
import type { MetadataFaultError } from '../errors/metadata-fault-error.js';
import { type FaultHandler, LoggingFaultHandler, ProcessTerminatingFaultHandler } from './fault-handler.js';
import type { SnapshotsDisabled } from './snapshots-disabled.js';

/** Counts of metadata faults on this node (Kafka's `metadata-load-error-count`, `metadata-apply-error-count`). */
export class MetadataFaultCounts {
  loadErrorCount = 0;
  applyErrorCount = 0;
}

/**
 * How the metadata fault handlers behave on this node: its role, how it ends the process, what it
 * counts and logs.
 */
export interface MetadataFaultHandlerOptions {
  /** A controller (or combined) node stops on a loading fault; a pure broker carries on. */
  readonly isController: boolean;
  /** Ends the process on a fatal fault; the application decides how. */
  readonly terminate: (error: MetadataFaultError) => void;
  readonly snapshotsDisabled: SnapshotsDisabled;
  readonly counts: MetadataFaultCounts;
  readonly logger?: Logger;
}

/**
 * The "metadata loading" handler of Kafka's `SharedServer`: counted, snapshots disabled for good
 * (the image may be wrong), and fatal on a controller.
 */
export function metadataLoadingFaultHandler(options: MetadataFaultHandlerOptions): FaultHandler {
  const action = (): void => {
    options.counts.loadErrorCount += 1;
    options.snapshotsDisabled.disable('metadata loading fault');
  };
  const logger = options.logger ?? silentLogger;
  return options.isController
    ? new ProcessTerminatingFaultHandler(options.terminate, action, logger)
    : new LoggingFaultHandler('metadata loading', action, logger);
}

/** The "metadata publishing" handler: counted and logged, never fatal; snapshots stay enabled. */
export function metadataPublishingFaultHandler(options: MetadataFaultHandlerOptions): FaultHandler {
  const action = (): void => {
    options.counts.applyErrorCount += 1;
  };
  return new LoggingFaultHandler('metadata publishing', action, options.logger ?? silentLogger);
}
