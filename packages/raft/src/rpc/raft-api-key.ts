/** Kafka API keys the raft core speaks. */
export const RaftApiKey = {
  FETCH: 1,
  VOTE: 52,
  BEGIN_QUORUM_EPOCH: 53,
  END_QUORUM_EPOCH: 54,
  DESCRIBE_QUORUM: 55,
  FETCH_SNAPSHOT: 59,
} as const;
