#!/usr/bin/env bash
# Times `reconscope stats` against `reconscope analyze` on the same file,
# interleaved runs, and prints the best and median of each and the ratio.
#   scripts/ratio.sh [FILE] [RUNS]   (default: a generated 256 MiB kamaji log, 10 runs)
set -euo pipefail
source "$(dirname "$0")/common.sh"
file="${1:-target/gen256.log}"
runs="${2:-10}"
cargo build --release --quiet --bin reconscope
if [[ ! -f "$file" ]]; then
    cargo run --release --quiet --example gen_kamaji_log -- "$file" 256
fi
python3 - "$file" "$runs" <<'PY'
import subprocess, sys, time, statistics
f, runs = sys.argv[1], int(sys.argv[2])
t = {"stats": [], "analyze": []}
for _ in range(runs):
    for c in t:
        s = time.perf_counter()
        subprocess.run(["target/release/reconscope", c, f], stdout=subprocess.DEVNULL, check=True)
        t[c].append(time.perf_counter() - s)
for c, v in t.items():
    print(f"{c:8} best {min(v):.2f} s  median {statistics.median(v):.2f} s")
print(f"analyze/stats: best {min(t['analyze'])/min(t['stats']):.2f}x  median {statistics.median(t['analyze'])/statistics.median(t['stats']):.2f}x")
PY
