# Sourced by the scripts beside it. exec_with_tsx <script name> <entry, relative to the app> [args]
# replaces the shell with node running that TypeScript entry through tsx's loader with the
# @kraft/source export condition, so the scripts work right after `pnpm install`, with no build
# step. `exec` leaves one process (the tool itself), so signals, including kill -9, reach it
# directly. Extra Node flags go in NODE_OPTIONS.
exec_with_tsx() {
  local script_name="$1" entry="$2"
  shift 2
  local app_dir
  app_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  local tsx_loader="$app_dir/node_modules/tsx/dist/loader.mjs"
  if [[ ! -f "$tsx_loader" ]]; then
    echo "$script_name: tsx is not installed; run 'pnpm install' at the repository root first" >&2
    exit 1
  fi
  exec node --conditions=@kraft/source --import "file://$tsx_loader" "$app_dir/$entry" "$@"
}
