//! `tranche run ci/guard.yaml --node model --clock virtual --architecture
//! both --seed 0` gives the report it gave when the modelled node and the
//! real node came to share one driver (`crates/bench/src/run/driver.rs`):
//! every figure the model makes (blocks, bytes, counts, its modelled CPU,
//! the samples) pinned in `model_guard.json`, beside what the machine
//! measures (wall time, memory, generation, the crypto floor's CPU).

use super::common::{args, guard_run, tmp};
use serde_json::Value;

/// The runs of a `--json` file without the figures the machine measures.
fn modelled(results: &Value) -> Value {
    let mut runs = results["runs"].as_array().expect("runs").clone();
    for r in &mut runs {
        let r = r.as_object_mut().expect("a run");
        // The name holds the file's path as given.
        for measured in ["name", "generation", "wall_time_s", "peak_memory_bytes"] {
            r.remove(measured);
        }
        let floor = r["crypto_floor"].as_object_mut().expect("crypto_floor");
        for measured in [
            "cpu_s",
            "per_block_s",
            "node_ratio",
            "interval_s",
            "batched_cpu_s",
            "batched_per_block_s",
            "node_ratio_batched",
        ] {
            floor.remove(measured);
        }
    }
    Value::Array(runs)
}

/// The first place where `a` and `b` differ, as a path, with both values.
fn first_difference(path: &str, a: &Value, b: &Value) -> Option<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys: std::collections::BTreeSet<_> = x.keys().chain(y.keys()).collect();
            keys.into_iter().find_map(|k| match (x.get(k), y.get(k)) {
                (Some(p), Some(q)) => first_difference(&format!("{path}.{k}"), p, q),
                (p, q) => Some(format!("{path}.{k}: {p:?} vs {q:?}")),
            })
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(i, (p, q))| first_difference(&format!("{path}[{i}]"), p, q)),
        _ if a == b => None,
        _ => Some(format!("{path}: {a} vs {b}")),
    }
}

#[test]
fn the_modelled_node_on_the_guard_gives_its_pinned_report() {
    let cache = tmp("model-guard", "cache");
    let json = tmp("model-guard", "results.json");
    guard_run(
        &cache,
        &args([&"--node", &"model", &"--seed", &"0", &"--json", &json]),
    );
    let got: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let _ = std::fs::remove_dir_all(&cache);
    let _ = std::fs::remove_file(&json);
    let pinned: Value = serde_json::from_str(include_str!("model_guard.json")).unwrap();
    let got = modelled(&got);
    if let Some(d) = first_difference("runs", &pinned, &got) {
        panic!("the modelled node's report changed (pinned vs now) at {d}");
    }
}
