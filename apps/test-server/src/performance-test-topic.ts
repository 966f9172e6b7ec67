import { Uuid } from '@kraft/protocol';

/**
 * What every test server replicates and answers for: Kafka's TestRaftServer partition and cluster
 * id. Its own module, so the tools beside the server (`kraft-storage`, `kraft-metadata-quorum`)
 * name the same partition without loading the server's whole module graph.
 */

/** Kafka's TestRaftServer partition; its topic id `Uuid(0, 2)` cannot collide with `__cluster_metadata`'s. */
export const PERFORMANCE_TEST_TOPIC_NAME = '__raft_performance_test';
export const PERFORMANCE_TEST_TOPIC_PARTITION = `${PERFORMANCE_TEST_TOPIC_NAME}-0`;
export const PERFORMANCE_TEST_TOPIC_ID = Uuid.fromLongs(0n, 2n);
/** The partition index: KRaft replicates one partition, 0. */
export const PERFORMANCE_TEST_PARTITION_INDEX = 0;
/**
 * Kafka's test server runs with the zero Uuid as its cluster id: what a log dir the server formats
 * itself is given. A dir formatted by `kraft-storage.sh format` keeps the cluster id it was given.
 */
export const TEST_SERVER_CLUSTER_ID = Uuid.ZERO.toString();
