#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The papers' comparisons on scaled-down streams (make paper): Bera et
# al.'s Tables 4-9, Deng & Rafiei's Fig. 4 (SBF against FPBuffering) and
# Boraskar et al.'s importance-aware filters, with the papers' figures
# beside ours. Fixed seeds. See eval/paper/paper-tables.py.
#
# Usage: eval/paper/paper-tables.sh [BUILD_DIR] [SEEDS]
set -euo pipefail
cd "$(dirname "$0")/../.." || exit 1
exec python3 eval/paper/paper-tables.py "${1:-build}" "${2:-3}"
