# Sourced by the scripts beside it. exec_entry <script name> <entry under src/, no extension> [args]
# replaces the shell with node running that entry: the built JavaScript (`pnpm build`:
# dist/<entry>.js and the packages' dist/) when it is current, else the TypeScript source through
# tsx's loader with the @kraft/source export condition, so the scripts also work right after
# `pnpm install` and on sources edited since the last build. KRAFT_FROM_SOURCE=1 forces the source.
# `exec` leaves one process (the tool itself), so signals, including kill -9, reach it directly.
# Extra Node flags go in NODE_OPTIONS.

# The packages the test server imports: their dist/ must be built for the built entry to run.
KRAFT_ENTRY_PACKAGES=(log metadata protocol raft records transport-tcp)

# Prints `built` when <app dir>/dist/<entry>.js and every package's dist/index.js exist and no
# TypeScript source of the app or those packages is newer than the oldest of them; else `source`.
kraft_entry_mode() {
  local app_dir="$1" entry="$2"
  local repository_dir oldest="$app_dir/dist/$entry.js" built
  repository_dir="$(cd "$app_dir/../.." && pwd)"
  if [[ -n "${KRAFT_FROM_SOURCE:-}" || ! -f "$oldest" ]]; then
    echo source
    return
  fi
  local source_dirs=("$app_dir/src")
  for package in "${KRAFT_ENTRY_PACKAGES[@]}"; do
    built="$repository_dir/packages/$package/dist/index.js"
    if [[ ! -f "$built" ]]; then
      echo source
      return
    fi
    [[ "$built" -ot "$oldest" ]] && oldest="$built"
    source_dirs+=("$repository_dir/packages/$package/src")
  done
  if [[ -n "$(find "${source_dirs[@]}" -name '*.ts' -newer "$oldest" -print -quit)" ]]; then
    echo source
  else
    echo built
  fi
}

exec_entry() {
  local script_name="$1" entry="$2"
  shift 2
  local app_dir
  app_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  if [[ "$(kraft_entry_mode "$app_dir" "$entry")" == built ]]; then
    exec node --enable-source-maps "$app_dir/dist/$entry.js" "$@"
  fi
  local tsx_loader="$app_dir/node_modules/tsx/dist/loader.mjs"
  if [[ ! -f "$tsx_loader" ]]; then
    echo "$script_name: tsx is not installed; run 'pnpm install' at the repository root first" >&2
    exit 1
  fi
  exec node --conditions=@kraft/source --import "file://$tsx_loader" "$app_dir/src/$entry.ts" "$@"
}
