//! How a whole-network simulation (`tranche network`) is shown: its
//! result (`tranche_results::network`, re-exported here) printed as a
//! table (`table`), drawn as a page (`page`), beside another (`beside`),
//! the CPU model's lines (`cpu`), a sweep's table and page (`sweep`).

pub mod beside;
pub mod cpu;
pub mod page;
pub mod sweep;
mod table;

pub use table::NetworkTable;

pub use tranche_results::network::*;

/// The report of the run the engine handed back
/// ([`SimulationReport::of_run`]), stamped with this program's commit and
/// command line for the page's header.
pub fn of_run(
    source: &str,
    spec: &tranche_config::approval_network::NetworkSpec,
    seed: u64,
    run: NetworkRun,
) -> SimulationReport {
    SimulationReport {
        commit: crate::meta::COMMIT.to_owned(),
        command: std::env::args().collect::<Vec<_>>().join(" "),
        ..SimulationReport::of_run(source, spec, seed, run)
    }
}

/// What the table and the page say of a report beyond its figures.
pub(crate) trait Described {
    /// Who verified the crypto (`once`, `every`, `model`), as the
    /// command line's metadata says; `None` in files without it.
    fn verify(&self) -> Option<&str>;
    /// How many validators of each behaviour.
    fn behaviours(&self) -> String;
}

impl Described for SimulationReport {
    /// Who verified the crypto (`once`, `every`, `model`), as the
    /// command line's metadata says; `None` in files without it.
    fn verify(&self) -> Option<&str> {
        self.meta
            .as_ref()?
            .config
            .iter()
            .find_map(|l| l.strip_prefix("verify: "))
    }

    /// How many validators of each behaviour.
    fn behaviours(&self) -> String {
        let mut counts: Vec<(&str, usize)> = Vec::new();
        for r in &self.validators {
            let name = r.behaviour.name();
            match counts.iter_mut().find(|c| c.0 == name) {
                Some(c) => c.1 += 1,
                None => counts.push((name, 1)),
            }
        }
        counts
            .iter()
            .map(|(n, c)| format!("{c} {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}
