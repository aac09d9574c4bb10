#!/usr/bin/env bash
# Pipeline throughput: `cargo bench --bench pipeline`, then one summary line
# per benchmark, e.g. `ingest+parse/plain: 812 MiB/s (256 MiB input)`.
#
#   scripts/bench.sh                 full run, 256 MiB input (about 2 minutes
#                                    after the build, on 2 cores)
#   scripts/bench.sh --quick         sanity run: 16 MiB input, 3 s per benchmark
#   scripts/bench.sh [--quick] FILTER   only benchmarks whose id matches FILTER,
#                                    a regex: escape the plus, 'ingest\+parse/plain'
#
# RECONSCOPE_BENCH_MIB=N sets the input size (default 256; --quick: 16) and
# RECONSCOPE_BENCH_SECS=N the measurement time per benchmark (default 15;
# --quick: 3). Criterion keeps its history per input size
# (target/criterion-<N>mib), so its "change" lines compare like with like.
# The full criterion output is kept in target/bench-pipeline.log.
set -euo pipefail
source "$(dirname "$0")/common.sh"

if [[ "${1:-}" == "--quick" ]]; then
    export RECONSCOPE_BENCH_MIB="${RECONSCOPE_BENCH_MIB:-16}"
    export RECONSCOPE_BENCH_SECS="${RECONSCOPE_BENCH_SECS:-3}"
    shift
fi
export RECONSCOPE_BENCH_MIB="${RECONSCOPE_BENCH_MIB:-256}"
export CRITERION_HOME="$ROOT/target/criterion-${RECONSCOPE_BENCH_MIB}mib"

LOG="$ROOT/target/bench-pipeline.log"
mkdir -p "$ROOT/target"

say "cargo bench --bench pipeline ${*:+-- $*} (RECONSCOPE_BENCH_MIB=$RECONSCOPE_BENCH_MIB)"
status=0
cargo bench --bench pipeline ${*:+-- "$@"} 2>&1 | tee "$LOG" || status=$?
if [[ $status != 0 ]]; then
    die "cargo bench failed (exit $status); output in $LOG"
fi

# Criterion prints, per benchmark:
#   <id>   time:   [lo mid hi]        (the id is on a line of its own when long)
#                  thrpt:  [lo mid hi]
# and, when an earlier run exists, a `change:` block whose thrpt is in %.
# The middle value of the first thrpt line is the estimate; convert it to MiB/s.
say "summary (input $RECONSCOPE_BENCH_MIB MiB; full output in $LOG)"
awk -v mib="$RECONSCOPE_BENCH_MIB" '
    function to_mib(v, unit) {
        if (unit == "B/s")   return v / 1048576
        if (unit == "KiB/s") return v / 1024
        if (unit == "MiB/s") return v
        if (unit == "GiB/s") return v * 1024
        if (unit == "KB/s")  return v * 1000 / 1048576
        if (unit == "MB/s")  return v * 1e6 / 1048576
        if (unit == "GB/s")  return v * 1e9 / 1048576
        return -1
    }
    /^Benchmarking / { next }
    /^[^ \t]/ {
        # A line starting at column 0 names a benchmark (with or without its time).
        if ($2 == "time:" || NF == 1) { id = $1; have = 0 }
        next
    }
    /thrpt:/ && !/%/ && id != "" && !have {
        s = $0
        sub(/.*\[/, "", s); sub(/\].*/, "", s)
        n = split(s, f, " ")
        # f = lo unit mid unit hi unit
        if (n >= 4) {
            printf "%s: %.0f MiB/s (%s MiB input)\n", id, to_mib(f[3], f[4]), mib
            have = 1
            found++
        }
    }
    END { if (!found) { print "no throughput lines found" > "/dev/stderr"; exit 1 } }
' "$LOG"
