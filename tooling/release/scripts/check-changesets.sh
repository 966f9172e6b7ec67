#!/usr/bin/env bash
# Fails when a published package changed without a pending changeset. "Changed" is measured from
# the last release commit (subject `release: <version>`, the commit that ran `pnpm
# version-packages`), not from the tip of main: on a clean clone of main the merge base is HEAD
# itself and `changeset status` would compare nothing. So on main and on a branch alike, every
# package whose shipped files (changedFilePatterns in .changeset/config.json) moved since the last
# release must be named by a changeset not yet consumed. Before any release, it measures from the
# first commit. KRAFT_CHANGESET_SINCE=<ref> overrides the starting point.
set -euo pipefail
cd "$(dirname "$0")/../../.."

since="${KRAFT_CHANGESET_SINCE:-}"
if [ -z "$since" ]; then
  # awk reads to the end: leaving early would kill git log with SIGPIPE, failing the pipeline.
  since=$(git log --format='%H %s' | awk '$2 == "release:" && !found { print $1; found = 1 }')
fi
if [ -z "$since" ]; then
  since=$(git rev-list --max-parents=0 HEAD | tail -n 1)
fi
echo "changesets: packages changed since $(git log -1 --format='%h %s' "$since")"
exec pnpm exec changeset status --since="$since"
