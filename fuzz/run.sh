#!/usr/bin/env bash
# Runs every fuzz target (fuzz/README.md) for SECONDS each (default
# 300), one after another, then merges what it found with the committed corpus
# into a minimized corpus under fuzz/corpus/<target>/. The working corpus,
# logs and a summary table go to fuzz/corpus-work/ (ignored by git); crash
# reproducers go to fuzz/artifacts/<target>/.
#
# Usage, from anywhere: fuzz/run.sh [SECONDS] [TARGET...]
# Needs cargo-fuzz (`cargo install cargo-fuzz`); runs on the stable toolchain
# with `-s none` (no sanitizer: Rust code is memory safe, and the sanitizers
# need a nightly toolchain).
set -uo pipefail
cd "$(dirname "$0")"
secs=${1:-300}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    mapfile -t targets < <(cargo fuzz list)
fi
mkdir -p corpus-work
summary=corpus-work/summary.tsv
[ -f "$summary" ] || printf 'target\tseconds\texecutions\texec_per_s\tcorpus_found\tcorpus_minimized\tresult\n' >"$summary"
cargo fuzz build -s none || exit 1
for t in "${targets[@]}"; do
    mkdir -p "corpus-work/$t" "corpus/$t"
    log="corpus-work/$t.log"
    start=$(date +%s)
    cargo fuzz run -s none "$t" "corpus-work/$t" "corpus/$t" -- \
        -max_total_time="$secs" -print_final_stats=1 >"$log" 2>&1
    rc=$?
    elapsed=$(( $(date +%s) - start ))
    result=ok
    [ $rc -eq 0 ] || result="crash(rc=$rc)"
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    found=$(ls "corpus-work/$t" | wc -l)
    # Minimize: keep the inputs that give the union of both corpora's coverage.
    rm -rf "corpus-work/$t.min" && mkdir "corpus-work/$t.min"
    if cargo fuzz run -s none "$t" "corpus-work/$t.min" "corpus/$t" "corpus-work/$t" -- \
        -merge=1 >"corpus-work/$t.merge.log" 2>&1; then
        rm -rf "corpus/$t" && mv "corpus-work/$t.min" "corpus/$t"
    fi
    kept=$(ls "corpus/$t" | wc -l)
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$t" "$elapsed" "${execs:-?}" "${rate:-?}" "$found" "$kept" "$result" | tee -a "$summary"
done
