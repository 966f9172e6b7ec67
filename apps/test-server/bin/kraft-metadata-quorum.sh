#!/usr/bin/env bash
# Describes a quorum of test servers and asks its leader to add or remove a controller (Kafka's
# kafka-metadata-quorum.sh); the leader is found from any controller given:
#   bin/kraft-metadata-quorum.sh --bootstrap-controller localhost:9093 describe --status
#   bin/kraft-metadata-quorum.sh --bootstrap-controller localhost:9093 describe --replication --human-readable
#   bin/kraft-metadata-quorum.sh --bootstrap-controller localhost:9093 --command-config controller-4.properties add-controller
#   bin/kraft-metadata-quorum.sh --bootstrap-controller localhost:9093 remove-controller --controller-id 3 --controller-directory-id 4-e97nI7eHPYKfEDtW8rtQ
# Exit 0 on success, 1 when the command fails (the reason on stderr), 2 on a bad command line.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/exec-entry.sh"
exec_entry kraft-metadata-quorum.sh metadata-quorum/main "$@"
