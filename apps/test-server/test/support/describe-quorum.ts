import { DescribeQuorumRequest, type DescribeQuorumResponseData } from '@kraft/protocol';
import { kraftApiRegistry, OutboundClient, type TlsContext } from '@kraft/transport-tcp';

const DESCRIBE_QUORUM_API_KEY = 55;
const DESCRIBE_QUORUM_MAX_VERSION = 2;

/** Asks one node DescribeQuorum, as `kafka-metadata-quorum.sh --bootstrap-controller` does (over TLS with `tls`). */
export async function describeQuorum(
  host: string,
  port: number,
  timeoutMs = 5000,
  tls?: TlsContext,
): Promise<DescribeQuorumResponseData> {
  const client = new OutboundClient({
    apis: kraftApiRegistry(),
    clientId: 'describe-quorum-test',
    clock: () => performance.now(),
    ...(tls === undefined ? {} : { tls }),
  });
  const destinationId = 1;
  client.updateEndpoint(destinationId, { host, port });
  try {
    return await new Promise<DescribeQuorumResponseData>((resolve) => {
      client.send(destinationId, {
        apiKey: DESCRIBE_QUORUM_API_KEY,
        maxVersion: DESCRIBE_QUORUM_MAX_VERSION,
        data: DescribeQuorumRequest.defaults({
          // The test server replicates Kafka's __raft_performance_test, which DescribeQuorum must name.
          topics: [{ topicName: '__raft_performance_test', partitions: [{ partitionIndex: 0 }] }],
        }),
        deadlineMs: performance.now() + timeoutMs,
        complete: (data) => resolve(data as DescribeQuorumResponseData),
      });
    });
  } finally {
    client.close();
  }
}
