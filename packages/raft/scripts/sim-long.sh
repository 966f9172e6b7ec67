#!/usr/bin/env bash
# The long simulation tier: 100,000 seeds in 100 shards of 1,000, two workers, one line per shard.
# Override with e.g. KRAFT_SIM_SEEDS=20000 KRAFT_SIM_SHARDS=20; then 20,000 voter change seeds.
set -uo pipefail
cd "$(dirname "$0")/../../.."
node --import tsx --conditions=@kraft/source packages/raft/scripts/sim.ts \
  --seeds "${KRAFT_SIM_SEEDS:-100000}" --shards "${KRAFT_SIM_SHARDS:-100}" --from "${KRAFT_SIM_FROM:-1}" --workers 2 "$@"
seeds_status=$?
# Then the voter change scenarios at kraft.version 1 (the random fault mix among them):
# KRAFT_SIM_VOTER_CHANGE_SEEDS (default 20,000) in shards of 1,000.
voter_change_seeds="${KRAFT_SIM_VOTER_CHANGE_SEEDS:-20000}"
node --import tsx --conditions=@kraft/source packages/raft/scripts/sim.ts --voter-changes \
  --seeds "$voter_change_seeds" --shards "$(( (voter_change_seeds + 999) / 1000 ))" --from "${KRAFT_SIM_FROM:-1}" --workers 2
voter_changes_status=$?
[ "$seeds_status" -eq 0 ] && [ "$voter_changes_status" -eq 0 ]
