#!/usr/bin/env bash
# Kafka's kafka-storage.sh for the test server's log dir (its metadata log dir):
#   bin/kraft-storage.sh random-uuid
#   bin/kraft-storage.sh format --config config/kraft.properties --cluster-id "$(bin/kraft-storage.sh random-uuid)"
#   bin/kraft-storage.sh format --config F --cluster-id ID --standalone | --initial-controllers 1@host:9093:DIRID,... | --no-initial-controllers
#   bin/kraft-storage.sh info --config config/kraft.properties
# Exit 0 when done, 1 when refused or failed (nothing written), 2 on a bad command line.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/exec-entry.sh"
exec_entry kraft-storage.sh storage/main "$@"
