#!/usr/bin/env bash
# `scripts/browser-bench.sh [MIB]` (default 1024): how the web app copes with
# a big log, in headless Chromium. A benchmark, not a test: it prints numbers.
#
#   1. Generates a realistic kamaji manager log of MIB MiB into
#      target/bench-kamaji-MIB.log with the example generator
#      (`cargo run --release --example gen_kamaji_log`), reused when present.
#   2. Serves the existing dist/ (`make build` builds it; run once if missing)
#      on a free localhost port with python3 -m http.server.
#   3. Runs tests/browser/bench/bench.mjs (playwright-core + /usr/bin/chromium),
#      which chooses the file with <input type=file> and measures
#        - load: file chosen -> timeline shows a reconcile count and draws;
#        - the longest main-thread task (PerformanceObserver 'longtask',
#          registered before the app loads) while loading;
#        - pan/zoom: ~5 s of wheel zooms and drag-pans over the timeline
#          canvas, counting requestAnimationFrame callbacks -> fps.
#   4. Prints the gzipped sizes of the two wasm modules (app and worker).
#
# If the MIB log does not load (timeout or the tab runs out of memory) and MIB
# is over 256, it says so and runs again with a 256 MiB log.
# Environment: BENCH_LOAD_TIMEOUT_MS (default 180000), BENCH_BIG_HEAP=1 (adds
# --js-flags=--max-old-space-size=8192), CHROMIUM_PATH.
set -euo pipefail
source "$(dirname "$0")/common.sh"

MIB=${1:-1024}
[[ $MIB =~ ^[0-9]+$ && $MIB -gt 0 ]] || die "usage: scripts/browser-bench.sh [MIB]"
[[ -f dist/index.html ]] || die "no dist/index.html: run \`make build\` first"
[[ -d tests/browser/node_modules/playwright-core ]] || die "no playwright-core: run scripts/setup.sh"

SERVER_PID=
cleanup() { if [[ -n "$SERVER_PID" ]]; then kill "$SERVER_PID" 2>/dev/null || true; fi; }
trap cleanup EXIT

# Writes target/bench-kamaji-$1.log unless it is already there (whole).
generate() {
    local mib=$1 log="target/bench-kamaji-$1.log"
    if [[ ! -f $log ]]; then
        say "generating $log ($mib MiB)" >&2
        cargo run --quiet --release --example gen_kamaji_log -- "$log.part" "$mib" >&2
        mv "$log.part" "$log"
    fi
    echo "$log"
}

port=$(free_port)
if port_in_use "$port"; then die "port $port is already taken"; fi
python3 -m http.server "$port" --bind 127.0.0.1 --directory dist >/dev/null 2>&1 &
SERVER_PID=$!
wait_for_http "$port"
export RECONSCOPE_URL="http://127.0.0.1:$port/"

# run_bench MIB: prints the summary block; returns bench.mjs's exit code.
run_bench() {
    local log
    log=$(generate "$1")
    say "loading $log in headless chromium ($RECONSCOPE_URL)" >&2
    node tests/browser/bench/bench.mjs "$log" "$1 MiB generated kamaji log"
}

wasm_sizes() {
    local app worker
    app=$(gzip -9c dist/app-*_bg.wasm | wc -c)
    worker=$(gzip -9c dist/worker_bg.wasm | wc -c)
    echo "wasm: app $((app / 1024)) KB gzip, worker $((worker / 1024)) KB gzip"
}

status=0
run_bench "$MIB" || status=$?
if [[ $status == 3 && $MIB -gt 256 ]]; then
    echo "(the $MIB MiB log did not load; falling back to 256 MiB)"
    status=0
    run_bench 256 || status=$?
fi
wasm_sizes
exit "$status"
