# Sourced by the scripts beside it. exec_entry <script name> <entry under src/, no extension> [args]
# replaces the shell with node running that entry: the built JavaScript (`pnpm build`:
# dist/<entry>.js and the packages' dist/) when it is current, else the TypeScript source through
# tsx's loader with the @kraft/source export condition, so the scripts also work right after
# `pnpm install` and on sources edited since the last build. KRAFT_FROM_SOURCE=1 forces the source.
# `exec` leaves one process (the tool itself), so signals, including kill -9, reach it directly.
# Extra Node flags go in NODE_OPTIONS; KRAFT_CPU_PROFILE_DIR=<dir> adds `--cpu-prof` into that dir
# (NODE_OPTIONS refuses --cpu-prof), so a profile of a test server started by a tool or a test
# can be taken without editing the command that starts it. The built entry runs without
# --enable-source-maps: reading every chunk's source map cost about 70 ms of each start (ADR
# 0046); NODE_OPTIONS=--enable-source-maps maps stack traces to the TypeScript sources again.

# The packages the test server imports: their dist/ must be built for the built entry to run.
KRAFT_ENTRY_PACKAGES=(log metadata protocol raft records transport-tcp)

# Whether <built file> exists and no TypeScript source under <source dir> is newer than it. Each
# package is compared with its own build (tsup bundles only the package's own sources), because
# turbo leaves a package whose build came from its cache with the older dist: one "oldest build"
# for all would send every launch after an edit and a rebuild to the sources.
kraft_build_current() {
  local source_dir="$1" built="$2"
  [[ -f "$built" && -z "$(find "$source_dir" -name '*.ts' -newer "$built" -print -quit)" ]]
}

# Prints `built` when <app dir>/dist/<entry>.js and every package's dist/index.js exist, each no
# older than its own TypeScript sources; else `source`.
kraft_entry_mode() {
  local app_dir="$1" entry="$2"
  local repository_dir
  repository_dir="$(cd "$app_dir/../.." && pwd)"
  if [[ -n "${KRAFT_FROM_SOURCE:-}" ]] || ! kraft_build_current "$app_dir/src" "$app_dir/dist/$entry.js"; then
    echo source
    return
  fi
  for package in "${KRAFT_ENTRY_PACKAGES[@]}"; do
    if ! kraft_build_current "$repository_dir/packages/$package/src" "$repository_dir/packages/$package/dist/index.js"; then
      echo source
      return
    fi
  done
  echo built
}

exec_entry() {
  local script_name="$1" entry="$2"
  shift 2
  local app_dir
  app_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  local profile_flags=()
  if [[ -n "${KRAFT_CPU_PROFILE_DIR:-}" ]]; then
    profile_flags=(--cpu-prof --cpu-prof-dir "$KRAFT_CPU_PROFILE_DIR")
  fi
  if [[ "$(kraft_entry_mode "$app_dir" "$entry")" == built ]]; then
    exec node "${profile_flags[@]}" "$app_dir/dist/$entry.js" "$@"
  fi
  local tsx_loader="$app_dir/node_modules/tsx/dist/loader.mjs"
  if [[ ! -f "$tsx_loader" ]]; then
    echo "$script_name: tsx is not installed; run 'pnpm install' at the repository root first" >&2
    exit 1
  fi
  exec node "${profile_flags[@]}" --conditions=@kraft/source --import "file://$tsx_loader" "$app_dir/src/$entry.ts" "$@"
}
