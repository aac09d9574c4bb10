#!/usr/bin/env bash
# `scripts/browser-big.sh [GIB...]` (default 1 2 3): big plain logs in the
# web app, in headless Chromium. A benchmark, not a test: it prints numbers.
#
#   1. Generates a kamaji manager log of each size into
#      target/bench-kamaji-<MiB>.log with the example generator
#      (`cargo run --release --example gen_kamaji_log`), reused when present.
#   2. Serves the existing dist/ (`make build` builds it) on a free port.
#   3. Runs tests/browser/bench/big.mjs, which loads each log in a fresh
#      Chromium and prints the load time, the tab's peak memory (renderer
#      processes' resident memory) and what was read: a log over what the
#      tab holds (reconscope::web::TAB_LOG_BYTES) is read up to it, with a
#      banner saying what was left out.
# Environment: BENCH_LOAD_TIMEOUT_MS (default 600000), CHROMIUM_PATH.
set -euo pipefail
source "$(dirname "$0")/common.sh"

sizes=("$@")
[[ ${#sizes[@]} -gt 0 ]] || sizes=(1 2 3)
for g in "${sizes[@]}"; do [[ $g =~ ^[0-9]+$ && $g -gt 0 ]] || die "usage: scripts/browser-big.sh [GIB...]"; done
[[ -f dist/index.html ]] || die "no dist/index.html: run \`make build\` first"
[[ -d tests/browser/node_modules/playwright-core ]] || die "no playwright-core: run scripts/setup.sh"

SERVER_PID=
cleanup() { if [[ -n "$SERVER_PID" ]]; then kill "$SERVER_PID" 2>/dev/null || true; fi; }
trap cleanup EXIT

logs=()
for g in "${sizes[@]}"; do
    mib=$((g * 1024)) log="target/bench-kamaji-$((g * 1024)).log"
    if [[ ! -f $log ]]; then
        say "generating $log ($g GiB)" >&2
        cargo run --quiet --release --example gen_kamaji_log -- "$log.part" "$mib" >&2
        mv "$log.part" "$log"
    fi
    logs+=("$log")
done

port=$(free_port)
python3 -m http.server "$port" --bind 127.0.0.1 --directory dist >/dev/null 2>&1 &
SERVER_PID=$!
wait_for_http "$port"
RECONSCOPE_URL="http://127.0.0.1:$port/" node tests/browser/bench/big.mjs "${logs[@]}"
