#!/usr/bin/env bash
# Alternates jstk binaries through internal/e2e's MCP benchmarks and prints, for each
# benchmark and binary, the median and range of its p50 (ValidateRoundTrip) or calls/s
# (Throughput8) over the rounds. On a noisy machine only medians of alternating rounds
# compare (BENCHMARKS.md, issue 29).
#
#   go test -c -o /tmp/e2e.test ./internal/e2e
#   scripts/mcpbench/rounds.sh /tmp/e2e.test 10 'Throughput8|ValidateRoundTrip/inline' 3000x ./jstk.before ./jstk.after
set -euo pipefail
if [ $# -lt 5 ]; then
	echo "usage: $0 E2E_TEST ROUNDS BENCH_PATTERN BENCHTIME BINARY..." >&2
	exit 2
fi
e2e=$(realpath "$1"); rounds=$2; pattern=$3; benchtime=$4; shift 4
bins=()
for b in "$@"; do bins+=("$(realpath "$b")"); done
out=$(mktemp)
trap 'rm -f "$out"' EXIT
cd "$(dirname "$0")/../../internal/e2e"
for _ in $(seq "$rounds"); do
	for b in "${bins[@]}"; do
		JSTK_E2E_BIN=$b "$e2e" -test.run '^$' -test.bench "$pattern" -test.benchtime "$benchtime" 2>&1 |
			awk -v b="$b" '/^Benchmark/ { v = ""; for (i = 3; i < NF; i++) if ($(i+1) == "p50-us" || $(i+1) == "calls/s") v = $i; if (v != "") print b, $1, v }' >> "$out"
	done
done
python3 - "$out" <<'PY'
import collections, statistics, sys
runs = collections.defaultdict(list)
order = []
for line in open(sys.argv[1]):
    b, name, v = line.split()
    if (name, b) not in runs:
        order.append((name, b))
    runs[(name, b)].append(float(v))
for name in sorted({n for n, _ in order}):
    cells = [f"{b}: {statistics.median(v):.1f} [{min(v):.0f}-{max(v):.0f}]" for n, b in order if n == name for v in [runs[(n, b)]]]
    print(name, " | ".join(cells))
PY
