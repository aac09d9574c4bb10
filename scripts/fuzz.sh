#!/usr/bin/env bash
# The cargo-fuzz targets of fuzz/ (README "Fuzzing"):
#
#   scripts/fuzz.sh smoke              each target ~15 s over a copy of its
#                                      corpus; fails on any crash, timeout or OOM
#   scripts/fuzz.sh campaign [SECONDS [TARGET...]]
#                                      each target (or those named) SECONDS
#                                      (default 600), then
#                                      new inputs that add coverage merged into
#                                      fuzz/corpus/<target>; prints a table
#   FUZZ_SANITIZER=none scripts/fuzz.sh campaign [SECONDS]
#                                      the same without AddressSanitizer:
#                                      about 6 times the executions, no leak check
#
# Targets are built on stable Rust (RUSTC_BOOTSTRAP=1, which cargo-fuzz's
# nightly flags need) with debug assertions and overflow checks on
# (fuzz/Cargo.toml's profile.release says so too). The smoke run's build has
# no sanitizer (`-s none`, fuzz/target/): it catches a crash (panic, failed
# assertion, overflow), a timeout (-timeout) or an OOM (-rss_limit_mb), not
# a leak. The campaign's build has AddressSanitizer and LeakSanitizer
# (`-s address`, fuzz/target-asan/): it catches leaks too, unless
# FUZZ_SANITIZER=none asks for the smoke run's build.
#
# Seeds: fuzz/corpus/<target>/ were written by fuzz/seeds.py from
# tests/corpus and tests/fixtures/incident (and tiny archives of them),
# plus what campaigns merged in since. Crashes land in fuzz/artifacts/.
set -euo pipefail
source "$(dirname "$0")/common.sh"

TARGETS=(ingest parse goroutines objects pipeline)
SMOKE_SECONDS=${FUZZ_SMOKE_SECONDS:-15}
MERGE_MAX_BYTES=${FUZZ_MERGE_MAX_BYTES:-1024}
# Flags of every run: a run stops at the first crash, a 10 s input is a
# timeout, 2 GiB an OOM; inputs up to 64 KiB.
FLAGS=(-timeout=10 -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1)

# build SANITIZER: the targets, into fuzz/target (none) or fuzz/target-asan.
SANITIZER=none
build() {
    SANITIZER=$1
    say "fuzz: building the targets (cargo fuzz build -s $SANITIZER --debug-assertions)"
    # The smoke run's build with 16 codegen units: a change to the library
    # builds in about 1 min instead of 2-4 (and runs no slower here).
    local units=()
    if [[ $SANITIZER == none ]]; then units=(--codegen-units 16); fi
    (cd fuzz && RUSTC_BOOTSTRAP=1 cargo fuzz build -s "$SANITIZER" --debug-assertions "${units[@]}" --target-dir "$(target_dir)")
}

target_dir() { if [[ $SANITIZER == none ]]; then echo target; else echo target-asan; fi; }
bin() { echo "fuzz/$(target_dir)/x86_64-unknown-linux-gnu/release/$1"; }

# run TARGET SECONDS CORPUS_DIR LOG [NICENESS]: one libFuzzer run; its
# exit code. (libFuzzer will not start without its artifacts folder.)
run() {
    local target=$1 seconds=$2 corpus=$3 log=$4 niceness=${5:-0}
    mkdir -p "fuzz/artifacts/$target"
    nice -n "$niceness" "$(bin "$target")" "$corpus" "${FLAGS[@]}" -max_total_time="$seconds" \
        -artifact_prefix="fuzz/artifacts/$target/" >"$log" 2>&1
}

# The figures of a run's log: executions, and whether it ended on a crash,
# a timeout or an OOM (libFuzzer stops at the first).
figures() {
    local log=$1 execs crash=0 timeout=0 oom=0
    execs=$(awk '/^stat::number_of_executed_units:/ { print $2 }' "$log" | tail -1)
    grep -q 'ERROR: libFuzzer: deadly signal\|panicked at\|ERROR: AddressSanitizer\|ERROR: LeakSanitizer' "$log" && crash=1
    grep -q 'ERROR: libFuzzer: timeout' "$log" && timeout=1
    grep -q 'ERROR: libFuzzer: out-of-memory' "$log" && oom=1
    echo "${execs:-0} $crash $timeout $oom"
}

smoke() {
    build none
    local tmp status=0 failing=()
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' RETURN
    for t in "${TARGETS[@]}"; do
        # A copy: nothing the run finds is written into the repository.
        cp -r "fuzz/corpus/$t" "$tmp/$t"
        local rc=0
        run "$t" "$SMOKE_SECONDS" "$tmp/$t" "$tmp/$t.log" || rc=$?
        read -r execs crash timeout oom < <(figures "$tmp/$t.log")
        printf 'fuzz smoke %-10s %8s runs, %s crashes, %s timeouts, %s OOMs\n' "$t" "$execs" "$crash" "$timeout" "$oom"
        if [[ $rc != 0 || $crash$timeout$oom != 000 ]]; then
            status=1
            failing+=("$t (exit $rc, $crash crashes, $timeout timeouts, $oom OOMs)")
            tail -40 "$tmp/$t.log"
        fi
    done
    # The last line names the failing targets (make test's summary shows it).
    if [[ $status != 0 ]]; then echo "fuzz smoke failed: ${failing[*]}"; fi
    return $status
}

campaign() {
    local seconds=${1:-600} tmp status=0
    shift || true
    local -a targets=("$@")
    [[ ${#targets[@]} -gt 0 ]] || targets=("${TARGETS[@]}")
    for t in "${targets[@]}"; do [[ " ${TARGETS[*]} " == *" $t "* ]] || die "no fuzz target $t (${TARGETS[*]})"; done
    build "${FUZZ_SANITIZER:-address}"
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' RETURN
    local -a rows=()
    for t in "${targets[@]}"; do
        mkdir -p "$tmp/$t"
        cp -r "fuzz/corpus/$t/." "$tmp/$t/"
        say "fuzz campaign: $t for ${seconds}s"
        local rc=0
        run "$t" "$seconds" "$tmp/$t" "$tmp/$t.log" 10 || rc=$?
        read -r execs crash timeout oom < <(figures "$tmp/$t.log")
        if [[ $rc != 0 || $execs == 0 ]]; then
            # (A run that could not start says why: it ran nothing.)
            status=1
            tail -40 "$tmp/$t.log"
        fi
        # Only small inputs (at most MERGE_MAX_BYTES) that add coverage join
        # the committed corpus, which stays small.
        mkdir -p "$tmp/$t.merged" "$tmp/$t.small"
        find "$tmp/$t" -type f -size -"$((MERGE_MAX_BYTES + 1))"c -exec cp {} "$tmp/$t.small/" \;
        "$(bin "$t")" -merge=1 "$tmp/$t.merged" "fuzz/corpus/$t" "$tmp/$t.small" "${FLAGS[@]}" >"$tmp/$t.merge.log" 2>&1 || status=1
        rm -rf "fuzz/corpus/$t" && mv "$tmp/$t.merged" "fuzz/corpus/$t"
        rows+=("| \`$t\` | $execs | $crash | $timeout | $oom | $(ls "fuzz/corpus/$t" | wc -l) files, $(( $(du -sb "fuzz/corpus/$t" | cut -f1) / 1024 )) KiB |")
    done
    echo
    echo "Campaign of $(date -u +%Y-%m-%dT%H:%MZ), ${seconds}s per target, sanitizer: $SANITIZER:"
    echo
    echo "| target | executions | crashes$([[ $SANITIZER == address ]] && echo " (leaks included)") | timeouts | OOMs | corpus |"
    echo "|---|---|---|---|---|---|"
    printf '%s\n' "${rows[@]}"
    return $status
}

case "${1:-}" in
    smoke) smoke ;;
    campaign) shift; campaign "$@" ;;
    *) die "usage: scripts/fuzz.sh smoke | campaign [SECONDS [TARGET...]]" ;;
esac
