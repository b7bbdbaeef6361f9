#!/usr/bin/env bash
# The whole test suite: installs the system packages it needs, builds, and runs every test.
# Tests that need ../shared/fixtures skip with a visible reason when that folder is absent. It
# starts a private PostgreSQL server (Scripts/setup-postgres.sh) for the lab-server tests, and
# installs liblsl and pylsl (Scripts/setup-lsl.sh) for the Lab Streaming Layer tests.
set -euo pipefail
cd "$(dirname "$0")/.."
Scripts/setup-system.sh
Scripts/setup-models.sh
Scripts/setup-lsl.sh          # liblsl and pylsl (the LSL tests skip with a reason without them)
swift build --build-tests
# A private PostgreSQL server for the lab-server tests (a real one, on 127.0.0.1).
eval "$(Scripts/setup-postgres.sh)"
swift test --skip-build
