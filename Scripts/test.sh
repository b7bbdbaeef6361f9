#!/usr/bin/env bash
# The whole test suite: installs the system packages it needs, builds, and runs every test.
# Tests that need ../shared/fixtures skip with a visible reason when that folder is absent.
set -euo pipefail
cd "$(dirname "$0")/.."
Scripts/setup-system.sh
Scripts/setup-models.sh
swift build --build-tests
swift test --skip-build
