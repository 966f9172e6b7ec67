#!/usr/bin/env bash
# Prints KRaft log segments and snapshots batch by batch with their records decoded (Kafka's
# kafka-dump-log.sh --cluster-metadata-decoder):
#   bin/kraft-dump-log.sh --files /tmp/kraft-logs/__cluster_metadata-0/00000000000000000000.log
#   bin/kraft-dump-log.sh --json --files a.log,00000000000000000100-0000000002.checkpoint
# Exit 0 when every file decodes, 1 at a bad file, 2 on a bad command line.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/exec-entry.sh"
exec_entry kraft-dump-log.sh dump-log/main "$@"
