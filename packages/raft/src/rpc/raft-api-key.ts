/** Kafka API keys the raft core speaks. */
export const RaftApiKey = {
  FETCH: 1,
  VOTE: 52,
  BEGIN_QUORUM_EPOCH: 53,
  END_QUORUM_EPOCH: 54,
  DESCRIBE_QUORUM: 55,
  FETCH_SNAPSHOT: 59,
  ADD_RAFT_VOTER: 80,
  REMOVE_RAFT_VOTER: 81,
  UPDATE_RAFT_VOTER: 82,
} as const;
