#!/usr/bin/env bash
# Runs docs/examples/openai_python.py — the Python quickstart, unmodified — with the official
# `openai` package (PyPI, pinned, in a temp venv) against a throwaway gateway in front of the
# simulators (scripts/client_target.ts), and checks its chat, stream and tool-call lines. Kept
# out of `deno task test` because it needs PyPI and a venv.
set -euo pipefail
cd "$(dirname "$0")/.."
OPENAI_PY_VERSION=3.54.0
if command -v deno >/dev/null; then deno=(deno); else deno=(npx -y deno@2.9.6); fi

work=$(mktemp -d)
target_pid=""
cleanup() {
  if [ -n "$target_pid" ]; then kill "$target_pid" 2>/dev/null || true; wait "$target_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

python3 -m venv "$work/venv"
"$work/venv/bin/pip" install --quiet "openai==$OPENAI_PY_VERSION"

mkfifo "$work/target"
"${deno[@]}" run -A scripts/client_target.ts >"$work/target" &
target_pid=$!
read -r line <"$work/target"
field() { python3 -c 'import json,sys; print(json.loads(sys.argv[1])[sys.argv[2]])' "$line" "$1"; }

SOVRA_BASE_URL="$(field url)/v1" SOVRA_API_KEY="$(field key)" SOVRA_MODEL="$(field model)" \
  "$work/venv/bin/python" docs/examples/openai_python.py | tee "$work/out"
grep -Eq '^chat: .+' "$work/out"
grep -Eq '^stream: .+' "$work/out"
grep -Eq '^tool: get_weather \{"city": "[^"]+"\}$' "$work/out"
grep -Eq '^request id: req_' "$work/out"
echo "python quickstart: ok"
