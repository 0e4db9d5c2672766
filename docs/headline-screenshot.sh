#!/bin/sh
# Takes docs/report-headline.png, the screenshot README.md links: the HTML
# page of `tranche run --architecture both --clock virtual --seed 0`
# (the embedded default) rendered by Debian's headless chromium, cut to the
# page's top (the metadata and the two headline plots).
set -eu
cd "$(dirname "$0")/.."
BIN=${1:-./target/release/tranche}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$BIN" run --architecture both --clock virtual --seed 0 --cache-dir /tmp/tranche-readme-cache \
  --quiet --html "$dir/report.html" >/dev/null
chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
  --disable-component-update --disable-sync --no-first-run --hide-scrollbars \
  --user-data-dir="$dir/profile" --window-size=1600,900 \
  --screenshot="$PWD/docs/report-headline.png" "file://$dir/report.html"
echo "wrote docs/report-headline.png"
