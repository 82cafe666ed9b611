#!/usr/bin/env bash
# Fuzzes every operation of /openapi.json with schemathesis (PyPI, pinned, installed into a temp
# venv) against a throwaway gateway in front of the simulators (scripts/client_target.ts).
# Passes when no request gets a 5xx (check `not_a_server_error`). Model ids with their slash do
# not survive hypothesis' path-parameter filter often, hence the suppressed `filter_too_much`
# health check. Usage:
#   scripts/schemathesis.sh [extra schemathesis flags, e.g. --max-examples 200]
set -euo pipefail
cd "$(dirname "$0")/.."
SCHEMATHESIS_VERSION=4.32.5
if command -v deno >/dev/null; then deno=(deno); else deno=(npx -y deno@2.9.6); fi

work=$(mktemp -d)
target_pid=""
cleanup() {
  if [ -n "$target_pid" ]; then kill "$target_pid" 2>/dev/null || true; wait "$target_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

echo "installing schemathesis $SCHEMATHESIS_VERSION into a temp venv…" >&2
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install --quiet "schemathesis==$SCHEMATHESIS_VERSION"

mkfifo "$work/target"
"${deno[@]}" run -A scripts/client_target.ts >"$work/target" &
target_pid=$!
read -r line <"$work/target"
url=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["url"])' "$line")
key=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["key"])' "$line")
echo "gateway under test: $url" >&2

# Schemathesis and hypothesis keep caches in the working directory: keep them in the temp one.
cd "$work"

"$work/venv/bin/schemathesis" run "$url/openapi.json" \
  --url "$url" \
  --header "Authorization: Bearer $key" \
  --checks not_a_server_error \
  --max-examples "${SCHEMATHESIS_MAX_EXAMPLES:-50}" \
  --workers 1 \
  --suppress-health-check=filter_too_much \
  "$@"
