#!/usr/bin/env bash
# Runs every fuzz target of the packages given, FUZZTIME (default 20s) each.
#
# Go 1.26's fuzzing coordinator can fail a target with a bare "context
# deadline exceeded" when -fuzztime runs out while a worker is mid-input
# (golang/go#75804, fixed in Go 1.27): no input failed and none is written.
# Such a run is run once more; any other failure, and a second such one,
# fails. A real finding always writes its input to testdata/fuzz.
set -uo pipefail
fuzztime=${FUZZTIME:-20s}
for pkg in "$@"; do
	for target in $(go test -list '^Fuzz' "$pkg" | grep '^Fuzz'); do
		for attempt in 1 2; do
			echo "== $pkg $target"
			out=$(go test "$pkg" -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" 2>&1)
			rc=$?
			printf '%s\n' "$out"
			[ "$rc" -eq 0 ] && break
			if [ "$attempt" -eq 1 ] && grep -q 'context deadline exceeded' <<<"$out" && ! grep -q 'Failing input written' <<<"$out"; then
				echo "== $target: the coordinator's deadline race (golang/go#75804), no failing input; once more"
				continue
			fi
			exit 1
		done
	done
done
