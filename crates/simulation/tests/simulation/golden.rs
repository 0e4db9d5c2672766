//! The simulation's per-validator records and block summaries for a
//! committed file and seed equal a committed golden JSON, generated
//! before the crate's parts were moved: behaviour is unchanged as long as
//! this passes. Regenerate only deliberately:
//! `TRANCHE_GOLDEN_UPDATE=1 cargo test -p tranche-simulation --test simulation golden`.

use std::path::Path;
use tranche_config::approval_network::load;
use tranche_simulation::{simulate, EngineConfig, Verify};

const SEED: u64 = 7;

#[test]
fn records_equal_the_golden_json() {
    golden("small");
}

/// The same with the CPU model, in each layout, loaded enough that queues
/// fill and threads wait.
#[test]
fn records_with_the_cpu_model_equal_the_golden_json() {
    golden("cpu-classic");
    golden("cpu-parallel");
}

fn golden(name: &str) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
    let spec = load(&dir.join(format!("{name}.yaml"))).unwrap();
    let run = simulate(&spec, SEED, Verify::Once, &EngineConfig::default(), None)
        .unwrap()
        .expect("process 0 reports");
    let report = tranche_report::network::SimulationReport::of_run(name, &spec, SEED, run);
    let got = serde_json::json!({
        "seed": SEED,
        "blocks": report.blocks,
        "validators": report.validators,
    });
    let path = dir.join(format!("{name}.seed7.json"));
    if std::env::var_os("TRANCHE_GOLDEN_UPDATE").is_some() {
        std::fs::write(&path, serde_json::to_string_pretty(&got).unwrap() + "\n").unwrap();
    }
    let want: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert!(
        got == want,
        "the records moved: compare with {}",
        path.display()
    );
}
