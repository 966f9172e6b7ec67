#!/usr/bin/env bash
# The long simulation tier: 100,000 seeds in 100 shards of 1,000, two workers, one line per shard.
# Override with e.g. KRAFT_SIM_SEEDS=20000 KRAFT_SIM_SHARDS=20.
set -euo pipefail
cd "$(dirname "$0")/../../.."
exec node --import tsx --conditions=@kraft/source packages/raft/scripts/sim.ts \
  --seeds "${KRAFT_SIM_SEEDS:-100000}" --shards "${KRAFT_SIM_SHARDS:-100}" --from "${KRAFT_SIM_FROM:-1}" --workers 2 "$@"
