import { Uuid } from '@kraft/protocol';

/**
 * Kafka's TestRaftServer partition; its topic id `Uuid(0, 2)` cannot collide with
 * `__cluster_metadata`'s. Its own module, so the storage tool names the partition directory
 * without loading the whole composition root.
 */
export const PERFORMANCE_TEST_TOPIC_NAME = '__raft_performance_test';
export const PERFORMANCE_TEST_TOPIC_PARTITION = `${PERFORMANCE_TEST_TOPIC_NAME}-0`;
export const PERFORMANCE_TEST_TOPIC_ID = Uuid.fromLongs(0n, 2n);
