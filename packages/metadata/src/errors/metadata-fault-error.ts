import { KRaftError } from '@kraft/protocol';

/** What a fault handler returns for its caller to throw or drop (Kafka's `FaultHandlerException`). */
export class MetadataFaultError extends KRaftError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('METADATA_FAULT', message, options);
  }
}
