#!/usr/bin/env bash
# Prints KRaft log segments and snapshots batch by batch with their records decoded (Kafka's
# kafka-dump-log.sh --cluster-metadata-decoder):
#   bin/kraft-dump-log.sh --files /tmp/kraft-logs/__cluster_metadata-0/00000000000000000000.log
#   bin/kraft-dump-log.sh --json --files a.log,00000000000000000100-0000000002.checkpoint
# Runs the TypeScript sources through tsx's loader with the @kraft/source export condition, as
# test-kraft-server-start.sh does. Exit 0 when every file decodes, 1 at a bad file, 2 on a bad
# command line.
set -euo pipefail
app_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tsx_loader="$app_dir/node_modules/tsx/dist/loader.mjs"
if [[ ! -f "$tsx_loader" ]]; then
  echo "kraft-dump-log.sh: tsx is not installed; run 'pnpm install' at the repository root first" >&2
  exit 1
fi
exec node --conditions=@kraft/source --import "file://$tsx_loader" "$app_dir/src/dump-log/main.ts" "$@"
