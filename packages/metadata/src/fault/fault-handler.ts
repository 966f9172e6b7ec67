import { type Logger, silentLogger } from '@kraft/protocol';
import { MetadataFaultError } from '../errors/metadata-fault-error.js';

/**
 * Where the metadata layer reports what it cannot handle (Kafka's `FaultHandler`). It returns an
 * error for the caller to throw or drop; a fatal handler never returns normally in production.
 */
export interface FaultHandler {
  /** Handles one fault and returns the error that describes it, for the caller to throw or drop. */
  handleFault(message: string, cause?: unknown): MetadataFaultError;
}

/** Logs the fault, runs `action`, and lets the caller carry on (Kafka's `LoggingFaultHandler`). */
export class LoggingFaultHandler implements FaultHandler {
  private readonly type: string;
  private readonly action: () => void;
  private readonly logger: Logger;

  constructor(type: string, action: () => void, logger: Logger = silentLogger) {
    this.type = type;
    this.action = action;
    this.logger = logger;
  }

  /**
   * Logs the fault at error level, runs the action (a counter), and returns the error; the caller
   * carries on.
   */
  handleFault(message: string, cause?: unknown): MetadataFaultError {
    this.logger.error({ err: cause, faultType: this.type, fault: message }, 'encountered metadata fault');
    this.action();
    return new MetadataFaultError(message, { cause });
  }
}

/**
 * Logs the fault and ends the process through `terminate` (Kafka's
 * `ProcessTerminatingFaultHandler`, which halts). The application supplies `terminate`: a
 * library never exits the process itself.
 */
export class ProcessTerminatingFaultHandler implements FaultHandler {
  private readonly terminate: (error: MetadataFaultError) => void;
  private readonly action: () => void;
  private readonly logger: Logger;

  constructor(
    terminate: (error: MetadataFaultError) => void,
    action: () => void,
    logger: Logger = silentLogger,
  ) {
    this.terminate = terminate;
    this.action = action;
    this.logger = logger;
  }

  /** Logs the fault at fatal level, runs the action (ends the process), and returns the error. */
  handleFault(message: string, cause?: unknown): MetadataFaultError {
    this.logger.fatal({ err: cause, fault: message }, 'encountered fatal metadata fault');
    const error = new MetadataFaultError(message, { cause });
    this.action();
    this.terminate(error);
    return error;
  }
}
