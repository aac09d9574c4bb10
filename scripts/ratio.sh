#!/usr/bin/env bash
# Times `reconscope stats`, `reconscope analyze` and `reconscope analyze
# --json` on the same file, interleaved runs, and prints for each the best
# and median time and the peak memory (max RSS, from wait4), then the
# ratios to `stats` and the peaks against the file's size.
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
import os, subprocess, sys, time, statistics
f, runs = sys.argv[1], int(sys.argv[2])
size = os.path.getsize(f)
cmds = {"stats": ["stats", f], "analyze": ["analyze", f], "analyze --json": ["analyze", "--json", f]}
t = {c: [] for c in cmds}
rss = {c: 0 for c in cmds}
for _ in range(runs):
    for c, args in cmds.items():
        s = time.perf_counter()
        p = subprocess.Popen(["target/release/reconscope", *args], stdout=subprocess.DEVNULL)
        _, status, usage = os.wait4(p.pid, 0)
        t[c].append(time.perf_counter() - s)
        assert os.waitstatus_to_exitcode(status) == 0, c
        rss[c] = max(rss[c], usage.ru_maxrss * 1024)
print(f"input {size / 2**20:.0f} MiB, {runs} runs each")
for c, v in t.items():
    print(f"{c:15} best {min(v):.2f} s  median {statistics.median(v):.2f} s  peak {rss[c] / 2**20:.0f} MiB ({rss[c] / size:.2f}x the input)")
for c in ("analyze", "analyze --json"):
    print(f"{c}/stats: best {min(t[c])/min(t['stats']):.2f}x  median {statistics.median(t[c])/statistics.median(t['stats']):.2f}x")
PY
