#!/usr/bin/env bash
# gen.sh makes cmd/jstk/default.pgo, the CPU profile that every build of ./cmd/jstk (the
# release's included: go build's -pgo=auto) is optimised with (issue 29). The profile is
# merged from the work jstk is measured on, run by a jstk built with -tags pgoprofile
# (cmd/jstk/profile.go) and no profile of its own:
#   - the small workloads: 36 SchemaStore schemas with about 1,000 instances each
#     (scripts/smallbench/gen.py), each validated 25 times, as `jstk validate` runs them;
#   - the reference workload: 100,000 NDJSON instances (bench-gen.py), validated 8 times;
#   - `jstk mcp`: BenchmarkValidateRoundTrip 10000x (the server and its engine process).
# Run from anywhere, with ../shared beside the repository; it took 45 s on the 2-core machine.
#
#   scripts/pgo/gen.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
shared=$(cd "${JSTK_SHARED:-../shared}" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/small" "$work/big" "$work/mcp" "$work/data/big"

CGO_ENABLED=0 go build -pgo=off -tags pgoprofile -trimpath -o "$work/jstk" ./cmd/jstk

python3 scripts/smallbench/gen.py --corpus "$shared/corpora/schemastore-dev" --out "$work/data/small" >/dev/null
for _ in $(seq 25); do
  for d in "$work"/data/small/*/; do
    JSTK_PGO_DIR="$work/small" "$work/jstk" validate --schema "$d/schema.json" "$d/data.jsonl" >/dev/null 2>&1 || true
  done
done

(cd "$work/data/big" && python3 "$shared/tools/bench-gen.py" 100000 10 >/dev/null)
for _ in $(seq 8); do
  JSTK_PGO_DIR="$work/big" "$work/jstk" validate --schema "$work/data/big/schema.json" "$work/data/big/data.jsonl" >/dev/null
done

go test -c -o "$work/e2e.test" ./internal/e2e
(cd internal/e2e && JSTK_PGO_DIR="$work/mcp" JSTK_E2E_BIN="$work/jstk" "$work/e2e.test" \
  -test.run '^$' -test.bench 'ValidateRoundTrip' -test.benchtime 10000x >/dev/null)

go tool pprof -proto "$work"/small/*.prof "$work"/big/*.prof "$work"/mcp/*.prof > cmd/jstk/default.pgo 2>/dev/null
echo "cmd/jstk/default.pgo: $(wc -c < cmd/jstk/default.pgo) bytes from $(ls "$work"/small "$work"/big "$work"/mcp | grep -c prof) profiles"
