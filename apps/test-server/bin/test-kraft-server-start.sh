#!/usr/bin/env bash
# Starts one node of a KRaft quorum running Kafka's __raft_performance_test workload:
#   bin/test-kraft-server-start.sh --config config/kraft.properties --replica-directory-id b8tRS7h4TJ2Vt43Dp85v2A
# The TypeScript sources run through tsx's loader with the @kraft/source export condition, so this
# works right after `pnpm install`, with no build step. `exec` leaves one process (the server
# itself), so signals, including kill -9, reach it directly. Extra Node flags go in NODE_OPTIONS.
set -euo pipefail
app_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tsx_loader="$app_dir/node_modules/tsx/dist/loader.mjs"
if [[ ! -f "$tsx_loader" ]]; then
  echo "test-kraft-server-start.sh: tsx is not installed; run 'pnpm install' at the repository root first" >&2
  exit 1
fi
exec node --conditions=@kraft/source --import "file://$tsx_loader" "$app_dir/src/main.ts" "$@"
