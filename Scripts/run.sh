#!/usr/bin/env bash
# The main job on a sample: set up, build, then take a session through gazerec's store
# (import, list, show, export) in a throw-away database, printing the exported JSON.
# Uses the real iOS EyeTracking export from ../shared/fixtures when present, otherwise the
# example in docs/examples.
set -euo pipefail
cd "$(dirname "$0")/.."
Scripts/setup-system.sh
swift build -c release --product gazerec >&2
gazerec="$(swift build -c release --show-bin-path)/gazerec"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export GAZEREC_DATABASE="$work/gazerec.sqlite"

sample="docs/examples/minimal-session.json"
if [ -f ../shared/fixtures/eyetracking/example_data_output.json ]; then
  sample="../shared/fixtures/eyetracking/example_data_output.json"
fi
echo "gazerec: importing $sample into a temporary database" >&2
id="$("$gazerec" import "$sample" | head -n 1)"
"$gazerec" list >&2
"$gazerec" show "$id" >&2
"$gazerec" export --pretty "$id"
