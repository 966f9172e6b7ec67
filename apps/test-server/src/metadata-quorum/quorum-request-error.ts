import { type ApiError, errorForCode, KRaftError } from '@kraft/protocol';

/**
 * The quorum leader answered a request with an error (Kafka's admin client turns the same answer
 * into an `ApiException`): the code and the leader's message, or the code's default message when
 * the leader sent none.
 */
export class QuorumRequestError extends KRaftError {
  readonly apiName: string;
  /** `host:port` of the controller that answered. */
  readonly endpoint: string;
  readonly error: ApiError;
  readonly serverMessage: string;

  constructor(apiName: string, endpoint: string, errorCode: number, serverMessage: string | null) {
    const error = errorForCode(errorCode);
    const text =
      serverMessage === null || serverMessage === '' ? (error.defaultMessage ?? '') : serverMessage;
    super(
      'QUORUM_REQUEST_FAILED',
      `${apiName} refused by the leader at ${endpoint}: ${error.name} (error code ${errorCode}): ${text}`,
    );
    this.apiName = apiName;
    this.endpoint = endpoint;
    this.error = error;
    this.serverMessage = text;
  }

  static isQuorumRequestError(value: unknown): value is QuorumRequestError {
    return KRaftError.isInstance(value) && value.code === 'QUORUM_REQUEST_FAILED';
  }
}
