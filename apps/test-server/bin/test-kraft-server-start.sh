#!/usr/bin/env bash
# Starts one node of a KRaft quorum running Kafka's __raft_performance_test workload:
#   bin/test-kraft-server-start.sh --config config/kraft.properties --replica-directory-id b8tRS7h4TJ2Vt43Dp85v2A
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/exec-entry.sh"
exec_entry test-kraft-server-start.sh main "$@"
