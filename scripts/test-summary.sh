#!/usr/bin/env bash
# Reads `go test -v` output on stdin, passes it through, and ends with how many
# top-level tests passed, failed and skipped, naming the skipped and failed ones,
# so a CI log shows which tests really ran on a given CLI.
#   make test TESTFLAGS=-v | bash scripts/test-summary.sh "terraform 1.15.0"
set -uo pipefail
label=${1:-tests}
awk -v label="$label" '
  { print }
  # Top-level results only: subtests are indented.
  /^--- (PASS|FAIL|SKIP): / {
    n[$2]++
    if ($2 != "PASS:") names[$2] = names[$2] " " $3
  }
  # A package can fail without a test result line (a panic, or os.Exit when
  # the CLI cannot run): name it too.
  /^FAIL\t/ { pkgs = pkgs " " $2 }
  # Issue 10: the tests of identity import, query, actions and functions (1.14+ but functions).
  /^--- (PASS|FAIL): / && $3 ~ /_identity|List_|Action_|^TestFunction|Terraform114/ { tf114++ }
  END {
    ran = n["PASS:"] + n["FAIL:"]
    printf "\n== %s: %d tests ran (%d passed, %d failed), %d skipped\n", label, ran, n["PASS:"], n["FAIL:"], n["SKIP:"]
    printf "   Terraform 1.14+ feature tests (identity, query, actions; functions 1.8+) that ran: %d\n", tf114
    if (n["SKIP:"]) printf "   skipped:%s\n", names["SKIP:"]
    if (n["FAIL:"]) printf "   failed:%s\n", names["FAIL:"]
    if (pkgs != "") printf "   failed packages:%s\n", pkgs
  }'
