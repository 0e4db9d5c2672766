//! The one rule of what is comparable, shared by `compare` and `history`:
//! two results can be judged one against the other when their kind,
//! seed, configuration, layout (the architectures run), workers, node
//! under test (real or model), processes, database and restart (`tranche
//! run --restart-at-block`: a run with a crash is a kind of run of its
//! own) agree. Where they do not, [`differences`] names every one that
//! differs in one line, and
//! no figure is judged across them (`compare` exits 3; `history` follows
//! them as separate series). A run of one file whose twin the other lacks
//! within one identity (a renamed step) is listed, never failed.

use crate::meta::{config_difference, kind, spec_fields};
use crate::network::SimulationReport;
use crate::results::ResultFile;
use crate::{Meta, ReportFile};
use tranche_cli::text::bare;

/// What decides whether two results are comparable.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Identity {
    pub kind: &'static str,
    pub seed: Option<u64>,
    pub config_hash: String,
    /// The normalised configuration (`meta.config`), to name the field
    /// that differs; not part of the equality's meaning beyond the hash.
    pub config: Vec<String>,
    /// The architectures run, sorted (`classic`, `parallel`).
    pub layouts: Vec<String>,
    /// The parallel layout's workers, sorted.
    pub workers: Vec<usize>,
    /// `real` or `model`, sorted.
    pub node: Vec<String>,
    /// The processes of a network run (1 for one).
    pub processes: Option<usize>,
    /// The worker threads of a network run in each process: the
    /// simulator's CPU per block grows with them (x1.3 from 1 to 2 at
    /// 40 x 8), so runs on other thread counts are not judged.
    pub threads: Option<usize>,
    /// The store (`redb`, `parity-db`, `memory`); empty where the result
    /// has none (a network run), `none` for the model, which keeps none.
    pub database: String,
    /// The blocks at whose slot the node crashed and restarted
    /// (`--restart-at-block`), sorted; empty: it ran through.
    pub restarts: Vec<u32>,
}

fn sorted<T: Ord>(mut v: Vec<T>) -> Vec<T> {
    v.sort();
    v.dedup();
    v
}

impl Identity {
    /// The identity of `r`.
    pub fn of(r: &ResultFile) -> Identity {
        match r {
            ResultFile::Run(f) => Identity::of_run(f),
            ResultFile::Network(n) => Identity::of_network(&n.report),
            _ => Identity::of_meta(r.kind(), r.meta()),
        }
    }

    /// What the metadata says (seed, configuration, database).
    fn of_meta(kind: &'static str, meta: Option<&Meta>) -> Identity {
        Identity {
            kind,
            seed: meta.map(|m| m.seed),
            config_hash: meta.map(|m| m.config_hash.clone()).unwrap_or_default(),
            config: meta.map(|m| m.config.clone()).unwrap_or_default(),
            layouts: Vec::new(),
            workers: Vec::new(),
            node: Vec::new(),
            processes: None,
            threads: None,
            database: meta.map(|m| m.database.clone()).unwrap_or_default(),
            restarts: Vec::new(),
        }
    }

    /// The identity of a run report: its runs' layouts, workers, nodes,
    /// restarts. The model's `meta.database` (`model`) names the node
    /// under test, not a store: its database is `none`.
    pub fn of_run(f: &ReportFile) -> Identity {
        let runs = &f.runs;
        let meta = Identity::of_meta(kind::RUN, f.meta.as_ref());
        let database = match meta.database.as_str() {
            "model" => "none".to_owned(),
            other => other.to_owned(),
        };
        Identity {
            restarts: sorted(
                runs.iter()
                    .filter_map(|r| r.restart.as_ref().map(|x| x.block))
                    .chain(f.meta.as_ref().and_then(|m| m.restart_at_block))
                    .collect(),
            ),
            database,
            layouts: sorted(runs.iter().map(|r| r.architecture.clone()).collect()),
            workers: sorted(
                runs.iter()
                    .filter(|r| r.architecture == "parallel")
                    .map(|r| r.workers)
                    .collect(),
            ),
            node: sorted(runs.iter().map(|r| r.node_under_test.clone()).collect()),
            ..meta
        }
    }

    /// The identity of a network report: its seed, spec, processes.
    pub fn of_network(r: &SimulationReport) -> Identity {
        let mut id = Identity::of_meta(kind::NETWORK, r.meta.as_ref());
        id.seed = Some(r.seed);
        if id.config.is_empty() {
            id.config = spec_fields(&r.spec);
        }
        if id.config_hash.is_empty() {
            id.config_hash = crate::meta::lines_hash(&id.config);
        }
        id.node = vec!["model".into()];
        id.processes = Some(r.cost.processes.max(1));
        id.threads = Some(r.cost.threads.max(1));
        id
    }
}

fn list<T: ToString>(v: &[T]) -> String {
    if v.is_empty() {
        "none".into()
    } else {
        v.iter().map(T::to_string).collect::<Vec<_>>().join("+")
    }
}

/// Every way `current` differs from `baseline` that makes them not
/// comparable, in one line (`the workers differ: baseline 2, current 4;
/// the node under test differs: ...`); `None` when they are comparable.
pub fn differences(baseline: &Identity, current: &Identity) -> Option<String> {
    let (b, c) = (baseline, current);
    if b.kind != c.kind {
        return Some(format!(
            "the kind differs: baseline is {}, current is {}",
            kind::describe(b.kind),
            kind::describe(c.kind)
        ));
    }
    let mut out: Vec<String> = Vec::new();
    let mut differ = |what: &str, bv: String, cv: String| {
        if bv != cv {
            out.push(format!(
                "the {what}: baseline {}, current {}",
                bare(&bv),
                bare(&cv)
            ));
        }
    };
    if let (Some(bs), Some(cs)) = (b.seed, c.seed) {
        differ("seed differs", bs.to_string(), cs.to_string());
    }
    differ("layout differs", list(&b.layouts), list(&c.layouts));
    // Workers of a layout only one file runs are the layout's difference.
    if !b.workers.is_empty() && !c.workers.is_empty() {
        differ("workers differ", list(&b.workers), list(&c.workers));
    }
    differ("node under test differs", list(&b.node), list(&c.node));
    if let (Some(bp), Some(cp)) = (b.processes, c.processes) {
        differ("processes differ", bp.to_string(), cp.to_string());
    }
    if let (Some(bt), Some(ct)) = (b.threads, c.threads) {
        differ("threads differ", bt.to_string(), ct.to_string());
    }
    if !b.database.is_empty() && !c.database.is_empty() {
        differ("database differs", b.database.clone(), c.database.clone());
    }
    let restarts = |v: &[u32]| match v {
        [] => "none".to_owned(),
        v => format!("at block {}", list(v)),
    };
    differ(
        "restart differs",
        restarts(&b.restarts),
        restarts(&c.restarts),
    );
    let hashes = !b.config_hash.is_empty() && !c.config_hash.is_empty();
    if hashes && b.config_hash != c.config_hash {
        out.push(format!(
            "the configuration (config_hash) differs: baseline {}, current {}; {}",
            bare(&b.config_hash),
            bare(&c.config_hash),
            config_difference(&b.config, &c.config)
        ));
    } else if !hashes && !b.config.is_empty() && !c.config.is_empty() && b.config != c.config {
        out.push(format!(
            "the configuration differs: {}",
            config_difference(&b.config, &c.config)
        ));
    }
    (!out.is_empty()).then(|| tranche_cli::text::one_line(&out.join("; ")))
}

/// The key of a series of `history`: everything of the identity but the
/// configuration's lines (the hash stands for them).
pub fn series_key(id: &Identity) -> Identity {
    Identity {
        config: Vec::new(),
        ..id.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ReportFile;

    fn run_file(f: impl Fn(&mut crate::RunReport)) -> ResultFile {
        let mut r = crate::fixture::run();
        f(&mut r);
        ResultFile::Run(ReportFile::new(vec![r]))
    }

    #[test]
    fn layout_workers_node_and_processes_are_named() {
        let base = Identity::of(&run_file(|_| {}));
        assert_eq!(differences(&base, &base), None);
        let workers = Identity::of(&run_file(|r| r.workers = 2));
        let why = differences(&base, &workers).unwrap();
        assert_eq!(why, "the workers differ: baseline 4, current 2");
        let layout = Identity::of(&run_file(|r| r.architecture = "classic".into()));
        let why = differences(&base, &layout).unwrap();
        assert_eq!(
            why,
            "the layout differs: baseline parallel, current classic"
        );
        let node = Identity::of(&run_file(|r| r.node_under_test = "model".into()));
        let why = differences(&base, &node).unwrap();
        assert!(why.contains("the node under test differs: baseline real, current model"));
        let both = Identity::of(&run_file(|r| {
            r.workers = 2;
            r.node_under_test = "model".into();
        }));
        let why = differences(&base, &both).unwrap();
        assert!(
            why.contains("workers") && why.contains("node under test"),
            "{why}"
        );
        let mut one = crate::fixture::network();
        one.cost.processes = 1;
        let mut two = one.clone();
        two.cost.processes = 2;
        let net = |r| {
            Identity::of(&ResultFile::Network(Box::new(
                crate::results::NetworkResult::of(r),
            )))
        };
        let mut threads = one.clone();
        threads.cost.threads = 2;
        let why = differences(&net(one.clone()), &net(two)).unwrap();
        assert_eq!(why, "the processes differ: baseline 1, current 2");
        let why = differences(&net(one), &net(threads)).unwrap();
        assert_eq!(why, "the threads differ: baseline 1, current 2");
    }

    #[test]
    fn a_long_value_is_cut_at_the_80_byte_rule() {
        let base = Identity::of(&run_file(|_| {}));
        let big = format!("\u{1b}]0;pwn\u{7}{}", "D".repeat(70_000));
        let other = Identity::of(&run_file(|r| r.node_under_test = big.clone()));
        let why = differences(&base, &other).unwrap();
        assert!(!why.contains('\u{1b}'), "{why}");
        assert!(
            why.contains(&format!(
                "current \\u{{1b}}]0;pwn\\u{{7}}{}… (70 008 bytes)",
                "D".repeat(80 - 17)
            )),
            "{why}"
        );
        assert!(why.len() < 200, "{why}");
    }
}
