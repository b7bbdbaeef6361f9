#!/usr/bin/env bash
# Lab Streaming Layer benchmark: pushes 60 gaze samples per second to a gaze outlet for SECONDS
# (default 20) with a pylsl inlet subscribed, as LabRecorder would be, then with no subscriber, and
# reports the CPU time per pushed sample against the same paced loop pushing nothing. Release build; liblsl and pylsl from
# Scripts/setup-lsl.sh; discovery kept on this machine (.build-lsl/lsl_api.cfg).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-20}"
Scripts/setup-lsl.sh
swift build -c release --product gazerec-bench >&2
bench="$(swift build -c release --show-bin-path)/gazerec-bench"
export LSLAPICFG="$PWD/.build-lsl/lsl_api.cfg"
echo "machine: $(nproc) cores, $(date -u +%Y-%m-%d)"
"$bench" lsl "$seconds" .build-lsl/venv/bin/python
echo
"$bench" lsl "$seconds"
