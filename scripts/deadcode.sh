#!/usr/bin/env bash
# Reports production functions that nothing reaches, and fails if there are any.
#
# The module has two kinds of entry point, so a function is dead when neither reaches it:
#   - the text2vec-am binary (main.go):        deadcode ./...
#   - module/, the Weaviate module: a library whose program is the Weaviate server that
#     `text2vec-am build-weaviate` generates outside this tree; its tests drive it through
#     Weaviate's module interfaces:           deadcode -test ./module/
# A function is reported when the binary does not reach it and either module/'s tests do not
# reach it or its package is not among module/'s dependencies (go list -deps -test ./module/).
# internal/testmodel, internal/testhttp, internal/testfiles, internal/fakeweaviate, internal/testfasttext,
# internal/shareddata and adapter/witness/witnesstest are test-support packages (only tests import
# them) and are left out.
set -euo pipefail
cd "$(dirname "$0")/.."
mod=$(go list -m)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
deadcode ./... | sort >"$tmp/main"
deadcode -test ./module/ | sort >"$tmp/module"
go list -deps -test ./module/ | sed -n "s|^${mod}/||p" | sort -u >"$tmp/moddeps"
found=$(awk -v deps="$tmp/moddeps" -v modlist="$tmp/module" '
  BEGIN { while ((getline l < deps) > 0) dep[l] = 1; while ((getline l < modlist) > 0) inmod[l] = 1 }
  {
    file = $0; sub(/:.*/, "", file); dir = file; sub(/\/[^\/]*$/, "", dir)
    if (dir ~ /^internal\/(testmodel|testhttp|testfiles|fakeweaviate|testfasttext|shareddata)$/ || dir == "adapter/witness/witnesstest") next
    if (!(dir in dep) || ($0 in inmod)) print
  }' "$tmp/main")
if [ -n "$found" ]; then
  echo "deadcode: functions no entry point reaches:"
  echo "$found"
  exit 1
fi
echo "deadcode: nothing unreachable (deadcode ./...; deadcode -test ./module/)"
