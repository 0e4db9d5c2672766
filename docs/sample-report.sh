#!/bin/sh
# Regenerates README.md's sample report from the current code: runs the
# command the README shows above the block with the given binary (default
# ./target/release/tranche; build it first) and replaces the text between
# the `sample-report` markers. `crates/bench/tests/bench/readme_sample.rs` runs
# the same command and fails, naming this script, when the README's block no
# longer has the layout the current code prints (figures masked), or when
# its exact virtual-clock lines (approval times, why, bytes, message counts)
# or its configuration hash differ from what the code prints (the commit is
# not compared). docs/headline-screenshot.sh takes the screenshot the
# README links from the same command's page.
set -eu
cd "$(dirname "$0")/.."
BIN=${1:-./target/release/tranche}
CACHE=/tmp/tranche-readme-cache
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$BIN" run --architecture both --clock virtual --seed 0 --cache-dir "$CACHE" --quiet >"$out"
awk -v report="$out" '
  /<!-- sample-report:start -->/ {
    print; print "```text";
    while ((getline line < report) > 0) print line;
    print "```"; skip = 1; next
  }
  /<!-- sample-report:end -->/ { skip = 0 }
  !skip { print }
' README.md >README.md.new
mv README.md.new README.md
echo "README.md: sample report regenerated with $BIN"
