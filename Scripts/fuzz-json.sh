#!/usr/bin/env bash
# Fuzzes the streaming JSON reader `gazerec import` parses documents with, under libFuzzer and
# AddressSanitizer (Scripts/fuzz/JSONReaderFuzz.swift says what each input goes through), seeded
# with the iOS fixture and gazerec's own exports when ../shared/fixtures is there.
# Usage: Scripts/fuzz-json.sh [SECONDS] (600); findings are written as crash-* files in the work folder it prints.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-600}"
work="$(mktemp -d)"
mkdir -p "$work/corpus"
swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name JSONStream -emit-library -static \
  -o "$work/libJSONStream.a" -emit-module -emit-module-path "$work/JSONStream.swiftmodule" Sources/JSONStream/*.swift \
  2>&1 | { grep -v "ld.gold: warning: Cannot export local symbol" || true; } >&2
swiftc -sanitize=fuzzer,address -parse-as-library -O -I "$work" -L "$work" -lJSONStream \
  Scripts/fuzz/JSONReaderFuzz.swift -o "$work/fuzz-json" 2>&1 | { grep -v "ld.gold: warning: Cannot export local symbol" || true; } >&2
[ -f ../shared/fixtures/eyetracking/example_data_output.json ] && cp ../shared/fixtures/eyetracking/example_data_output.json "$work/corpus/ios.json"
printf '[{"id":"A","appID":"x","beginTime":1,"deviceInfo":{},"scanPath":[{"x":1,"y":2,"timestamp":3,"orientation":1}],"blendShapes":{}}]' > "$work/corpus/small.json"
echo "fuzzing for $seconds s in $work" >&2
cd "$work"
./fuzz-json -max_total_time="$seconds" -max_len=65536 -print_final_stats=1 corpus 2>&1 | tail -15
ls crash-* 2>/dev/null && echo "findings above" || echo "no crash found in $seconds s"
