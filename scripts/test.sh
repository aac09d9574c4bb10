#!/usr/bin/env bash
# `make test`: every check CI runs, in order. Each step runs even if an earlier
# one failed, so one run shows everything; the exit code is non-zero if any
# step failed. The last line counts tests (cargo + browser) as
# "N passed, M failed", where a failed step that has no tests of its own
# (clippy, trunk build, ...) counts as one failure.
set -euo pipefail
source "$(dirname "$0")/common.sh"

bash scripts/setup.sh

LOGS=$(mktemp -d)
SERVER_PID=
cleanup() {
    if [[ -n "$SERVER_PID" ]]; then kill "$SERVER_PID" 2>/dev/null || true; fi
    rm -rf "$LOGS"
}
trap cleanup EXIT

declare -a RESULTS=()
passed=0 failed=0

# run_step NAME COMMAND...: runs the command, shows and logs its output, and
# records the outcome; never stops the script.
run_step() {
    local name=$1; shift
    local log="$LOGS/$(printf '%02d' "${#RESULTS[@]}").log"
    say "$name: $*"
    local start=$SECONDS status=0
    "$@" 2>&1 | tee "$log" || status=$?
    local took=$((SECONDS - start))
    if [[ $status == 0 ]]; then
        RESULTS+=("ok    ${took}s  $name")
    else
        # The step's last line beside it (the summary is what a CI page
        # shows first): which test, target or file failed.
        local last
        last=$(grep -v '^[[:space:]]*$' "$log" | tail -1 | cut -c1-160 || true)
        RESULTS+=("FAIL  ${took}s  $name (exit $status)${last:+: $last}")
    fi
    count_tests "$log" "$status"
}

# Adds the test counts found in a step's log to the totals.
count_tests() {
    local log=$1 status=$2 p f
    # cargo test: "test result: ok. 12 passed; 0 failed; ..."
    # node --test: "# pass 3" / "# fail 0" (TAP) or "ℹ pass 3" (spec reporter)
    read -r p f < <(awk '
        /^test result:/ { for (i = 1; i <= NF; i++) { if ($(i+1) ~ /^passed/) p += $i; if ($(i+1) ~ /^failed/) f += $i } }
        /^(# |ℹ )pass [0-9]+$/ { p += $NF }
        /^(# |ℹ )fail [0-9]+$/ { f += $NF }
        END { print p + 0, f + 0 }' "$log")
    passed=$((passed + p))
    failed=$((failed + f))
    # A failing step that reported no failing test still counts once.
    if [[ $status != 0 && $f == 0 ]]; then failed=$((failed + 1)); fi
}

# Native library, CLI and their tests. The `web` feature stays off, so yew and
# the other browser crates are never compiled here.
run_step "cargo test (native)" cargo test
run_step "native build has no web crates" \
    bash -c '! cargo tree --offline -e normal --prefix none | grep -E "^(yew|web-sys|js-sys|wasm-bindgen) "'
run_step "clippy (native)" cargo clippy --all-targets -- -D warnings
# The code as `cargo fmt` writes it (rustfmt.toml): a diff fails the step.
run_step "cargo fmt --check" cargo fmt --check
# The fuzz targets of fuzz/, each ~15 s over its corpus (built first, with
# debug assertions and overflow checks): any crash, timeout or OOM fails.
run_step "fuzz smoke (scripts/fuzz.sh smoke)" bash scripts/fuzz.sh smoke
# www/example/cozyreport.zip (the app's "Open example") is the incident
# fixture packed by scripts/make-example.py: it must match the fixture.
run_step "example artifact matches the fixture" python3 scripts/make-example.py --check

# The library and the UI as the browser gets them.
run_step "clippy (wasm32, web)" \
    cargo clippy --target wasm32-unknown-unknown --features web --lib --bin app --bin worker -- -D warnings

# dist/: the static site (index.html, js, wasm, css). Removed first so a
# failed build can never leave an old dist/ for the browser tests.
rm -rf dist
run_step "trunk build" trunk build --release --offline --locked

# The brief's budget: app and worker wasm together within 1.5 MB gzipped
# (as scripts/browser-bench.sh measures them, gzip -9).
run_step "wasm within 1.5 MB gzipped" bash -c '
    app=$(gzip -9c dist/app-*_bg.wasm | wc -c); worker=$(gzip -9c dist/worker_bg.wasm | wc -c)
    echo "wasm gzip: app $app + worker $worker = $((app + worker)) bytes (budget 1500000)"
    (( app + worker <= 1500000 ))'

# `analyze --html` without an app build: exit 2 and a line saying what to do.
# Run from a folder with no dist/ and without --app-dir or --app-url, so none
# of the ways to the app applies; the line must name them all.
run_step "html report without an app build is exit 2" bash -c '
    mkdir -p "$1/no-app"
    (cd "$1/no-app" && cargo run --quiet --manifest-path "$2/Cargo.toml" --bin reconscope -- \
        analyze "$2/tests/fixtures/incident/cozyreport" --html none.html 2>../html-err)
    rc=$?; cat "$1/html-err"
    [[ $rc == 2 ]] && grep -q "make build" "$1/html-err" && grep -q -- "--app-url URL" "$1/html-err" &&
        grep -q -- "--app-dir DIR" "$1/html-err" && [[ ! -e "$1/no-app/none.html" ]]' _ "$LOGS" "$ROOT"

# Browser tests against dist/, served on a free localhost port. They include
# tests/browser/html.test.mjs, which writes self-contained reports with
# `analyze --html --app-dir dist` and opens them from file:// (no server). The server
# is started here, not inside run_step (a pipeline subshell), so that the
# EXIT trap knows its PID and always stops it.
if [[ -f dist/index.html ]]; then
    port=$(free_port)
    if port_in_use "$port"; then die "port $port is already taken"; fi
    say "serving dist/ on http://127.0.0.1:$port/reconscope/"
    # Served under a sub-path, as on a project page (/reconscope/): the app
    # must find its files, its worker and the example relative to the page.
    mkdir -p "$LOGS/site"
    ln -s "$ROOT/dist" "$LOGS/site/reconscope"
    python3 -m http.server "$port" --bind 127.0.0.1 --directory "$LOGS/site" >"$LOGS/http.log" 2>&1 &
    SERVER_PID=$!
    wait_for_http "$port"
    run_step "browser tests (chromium)" \
        env RECONSCOPE_URL="http://127.0.0.1:$port/reconscope/" node --test tests/browser/*.test.mjs
    kill "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=
else
    RESULTS+=("FAIL  0s  browser tests (no dist/index.html: trunk build failed)")
    failed=$((failed + 1))
fi

echo
echo "==> make test summary (${SECONDS}s)"
printf '    %s\n' "${RESULTS[@]}"
if [[ -f dist/index.html ]]; then
    for wasm in dist/*.wasm; do
        printf '    %s: %s bytes, %s gzipped\n' "$wasm" "$(wc -c <"$wasm")" "$(gzip -9c "$wasm" | wc -c)"
    done
fi
echo "reconscope: $passed passed, $failed failed"
if printf '%s\n' "${RESULTS[@]}" | grep -q '^FAIL'; then exit 1; fi
