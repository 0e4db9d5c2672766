//! Test-sequence loading: the upstream examples, a G1-schema file, the
//! embedded default, and one-line errors for unknown keys, wrong types,
//! impossible values and missing files.

use std::path::{Path, PathBuf};
use std::time::Duration;

use tranche_config::{
    self as config, BenchConfig, Coalescing, ConfigError, ConfigErrorKind, Schema,
};
use tranche_links::{Bandwidth, LatencyModel};

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// A complete G2/G3 step; tests replace one line to break it.
const BASE: &str = "\
TestConfiguration:
- objective: !ApprovalVoting
    coalesce_mean: 3.0
    coalesce_std_dev: 1.0
    enable_assignments_v2: true
    last_considered_tranche: 89
    stop_when_approved: true
    coalesce_tranche_diff: 12
    workdir_prefix: \"/tmp/\"
    num_no_shows_per_candidate: 0
  n_validators: 500
  n_cores: 100
  min_pov_size: 1120
  max_pov_size: 5120
  peer_bandwidth: 524288000000
  bandwidth: 524288000000
  connectivity: 100
  latency: null
  num_blocks: 10
";

fn with(from: &str, to: &str) -> String {
    assert!(BASE.contains(from), "{from}");
    BASE.replacen(from, to, 1)
}

fn parse(yaml: &str) -> Result<BenchConfig, ConfigError> {
    config::parse(yaml, "test.yaml")
}

/// Parses `yaml`, expects an error, checks it is one line naming the file,
/// and returns it.
fn error(yaml: &str) -> ConfigError {
    let e = parse(yaml).expect_err("must be rejected");
    let text = e.to_string();
    assert!(!text.contains('\n'), "not one line: {text}");
    assert!(text.starts_with("test.yaml: "), "{text}");
    e
}

#[test]
fn every_example_parses() {
    let dir = workspace_root().join("examples");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    assert!(files.len() >= 4, "{files:?}");
    for path in &files {
        let cfg = config::load(path).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(cfg.source, path.display().to_string());
        assert!(cfg.skipped.is_empty());
        for s in &cfg.steps {
            assert_eq!(s.schema, Schema::G2G3);
            assert!(s.n_validators >= 100 && s.n_cores >= 20 && s.num_blocks >= 3);
            // The upstream examples are 500 validators, 100 cores, 10 blocks.
            if path.file_name().is_some_and(|n| {
                n.to_string_lossy().starts_with("approvals_throughput")
                    && !n.to_string_lossy().contains("1000")
            }) || path
                .file_name()
                .is_some_and(|n| n == "approvals_no_shows.yaml")
            {
                assert_eq!((s.n_validators, s.n_cores, s.num_blocks), (500, 100, 10));
            }
            assert_eq!(s.n_included_candidates, s.n_cores);
            assert_eq!(s.bandwidth, 524_288_000_000);
            assert_eq!(s.coalesce_tranche_diff, 12);
            assert_eq!(s.session.needed_approvals, 30);
            assert_eq!(s.session.n_delay_tranches, 89);
            assert_eq!(s.send_limit_tranche(), 89);
            assert_eq!(s.generation_tranche_limit(), None);
            assert!(s.name.ends_with(" #1 ApprovalVoting"), "{}", s.name);
        }
    }
}

#[test]
fn examples_carry_their_scenario_values() {
    let load = |name: &str| {
        let cfg = config::load(&workspace_root().join("examples").join(name)).unwrap();
        assert_eq!(cfg.steps.len(), 1);
        cfg.steps.into_iter().next().unwrap()
    };
    let best = load("approvals_throughput_best_case.yaml");
    assert!(best.stop_when_approved);
    assert_eq!(best.num_no_shows_per_candidate, 0);
    assert_eq!(
        best.coalescing,
        Coalescing::Normal {
            mean: 3.0,
            std_dev: 1.0
        }
    );
    assert!(best.enable_assignments_v2);
    // No latency / connectivity keys: the G3 defaults apply, and are noted.
    assert_eq!(
        best.latency,
        LatencyModel::Normal {
            mean_ms: 30.0,
            std_dev_ms: 2.0
        }
    );
    assert_eq!(best.connectivity, 90);
    assert!(best.defaulted.contains(&"latency"));
    assert!(best.defaulted.contains(&"connectivity"));
    assert_eq!(best.approval_voting_parallel_enabled, None);

    let no_shows = load("approvals_no_shows.yaml");
    assert_eq!(no_shows.num_no_shows_per_candidate, 10);

    let throughput = load("approvals_throughput.yaml");
    assert!(!throughput.stop_when_approved);

    let plain = load("approvals_throughput_no_optimisations_enabled.yaml");
    assert!(!plain.enable_assignments_v2);
    assert_eq!(
        plain.coalescing,
        Coalescing::Normal {
            mean: 1.0,
            std_dev: 0.0
        }
    );
    assert_eq!(plain.latency, LatencyModel::None);
    assert_eq!(plain.connectivity, 100);
    assert!(!plain.defaulted.contains(&"latency"));
}

#[test]
fn a_g1_file_with_seed_era_keys_parses() {
    let cfg = config::load(&data("g1_example.yaml")).unwrap_or_else(|e| panic!("{e}"));
    let s = &cfg.steps[0];
    assert_eq!(s.schema, Schema::G1);
    assert!(s.name.ends_with("g1_example.yaml #1 ApprovalsTest"));
    assert_eq!((s.n_validators, s.n_cores), (500, 100));
    assert_eq!(s.n_included_candidates, 50);
    assert_eq!(s.candidates_per_block(), 50);
    assert_eq!(s.coalescing, Coalescing::Uniform { min: 1, max: 6 });
    assert_eq!(s.send_till_tranche, Some(60));
    assert_eq!(s.send_limit_tranche(), 60);
    assert_eq!(s.generation_tranche_limit(), Some(89));
    assert!(!s.stop_when_approved);
    assert_eq!(
        s.latency,
        LatencyModel::Uniform {
            min: Duration::from_millis(1),
            max: Duration::from_millis(100)
        }
    );
    assert_eq!(s.error_percent, 0);
    let t = s.g1_thresholds.unwrap();
    assert_eq!(t.approval_distribution_expected_tof, 6.0);
    assert_eq!(t.approval_distribution_cpu_ms, 3.0);
    assert_eq!(t.approval_voting_cpu_ms, 4.30);
    // G1 constants and defaults.
    assert_eq!(s.session.needed_approvals, 30);
    assert_eq!(s.connectivity, 100);
    assert_eq!(s.n_backing_groups(), 500);
    assert_eq!(s.approval_voting_parallel_enabled, None);
}

#[test]
fn g1_accepts_the_normal_latency_of_its_merged_code() {
    let yaml = "\
TestConfiguration:
- objective: !ApprovalsTest
    coalesce_tranche_diff: 12
    workdir_prefix: /tmp
  n_validators: 50
  n_cores: 10
  n_included_candidates: 10
  latency:
    mean_latency_ms: 50
    std_dev: 12.5
  error: 3
  num_blocks: 2
";
    let s = &parse(yaml).unwrap().steps[0];
    assert_eq!(
        s.latency,
        LatencyModel::Normal {
            mean_ms: 50.0,
            std_dev_ms: 12.5
        }
    );
    assert_eq!(s.error_percent, 3);
    // ApprovalsOptions fall back to upstream's CLI defaults.
    assert_eq!(s.coalescing, Coalescing::Uniform { min: 1, max: 1 });
    assert_eq!(s.send_till_tranche, Some(89));
    assert!(s.stop_when_approved);
    assert_eq!(s.g1_thresholds.unwrap().approval_voting_cpu_ms, 6.0);
    assert_eq!(s.network_config(1).loss_probability, 0.03);
}

#[test]
fn the_embedded_default_is_small_and_best_case() {
    let cfg = config::embedded_default().unwrap();
    assert_eq!(cfg.source, config::DEFAULT_SOURCE);
    let s = &cfg.steps[0];
    assert_eq!((s.n_validators, s.n_cores, s.num_blocks), (100, 20, 3));
    assert!(s.stop_when_approved);
    assert_eq!(s.num_no_shows_per_candidate, 0);
    assert_eq!(s.latency, LatencyModel::None);
    assert_eq!(s.connectivity, 100);
    assert_eq!(s.n_backing_groups(), 20);
}

#[test]
fn g3_defaults_fill_a_minimal_step() {
    let yaml = "\
TestConfiguration:
- objective: !ApprovalVoting
    coalesce_tranche_diff: 12
  num_blocks: 1
";
    let s = &parse(yaml).unwrap().steps[0];
    assert_eq!((s.n_validators, s.n_cores), (300, 60));
    assert_eq!((s.bandwidth, s.peer_bandwidth), (44_040_192, 44_040_192));
    assert_eq!(s.connectivity, 90);
    assert_eq!(s.max_validators_per_core, 5);
    assert_eq!((s.min_pov_size_kib, s.max_pov_size_kib), (5120, 5120));
    assert_eq!(
        s.coalescing,
        Coalescing::Normal {
            mean: 1.0,
            std_dev: 1.0
        }
    );
    assert_eq!(s.workdir_prefix, "/tmp");
    assert_eq!(s.last_considered_tranche, 89);
    assert_eq!(s.send_till_tranche, None);
    assert!(!s.enable_assignments_v2);
    assert_eq!(s.error_percent, 0);
    assert_eq!(s.g1_thresholds, None);
    assert_eq!(
        (
            s.session.needed_approvals,
            s.session.zeroth_delay_tranche_width,
            s.session.relay_vrf_modulo_samples,
            s.session.n_delay_tranches,
            s.session.no_show_slots
        ),
        (30, 0, 6, 89, 3)
    );
    assert!(s.defaulted.contains(&"n_validators"));
    assert!(!s.defaulted.contains(&"num_blocks"));
}

#[test]
fn session_parameters_and_the_parallel_flag_are_read() {
    let yaml = with(
        "  num_blocks: 10\n",
        "  num_blocks: 10\n  needed_approvals: 20\n  n_delay_tranches: 40\n  no_show_slots: 2\n",
    )
    .replace(
        "    num_no_shows_per_candidate: 0\n",
        "    num_no_shows_per_candidate: 0\n    approval_voting_parallel_enabled: false\n",
    );
    let s = &parse(&yaml).unwrap().steps[0];
    assert_eq!(
        (
            s.session.needed_approvals,
            s.session.n_delay_tranches,
            s.session.no_show_slots
        ),
        (20, 40, 2)
    );
    assert_eq!(s.approval_voting_parallel_enabled, Some(false));
}

#[test]
fn network_config_follows_the_step() {
    let s = &parse(&with(
        "  latency: null\n",
        "  latency:\n    mean_latency_ms: 30\n    std_dev: 2.0\n",
    ))
    .unwrap()
    .steps[0];
    let n = s.network_config(9);
    assert_eq!(n.n_peers, 499);
    assert_eq!(n.seed, 9);
    assert_eq!(n.node_bandwidth, Bandwidth::BytesPerSecond(524_288_000_000));
    assert_eq!(
        n.latency,
        LatencyModel::Normal {
            mean_ms: 30.0,
            std_dev_ms: 2.0
        }
    );
    assert_eq!(n.connectivity_percent, 100);
    assert_eq!(n.loss_probability, 0.0);
    assert_eq!(s.connected_peers(), 499);
    assert_eq!(n.connected_count(), 499);
}

#[test]
fn unknown_keys_are_named_with_the_file() {
    let e = error(&with(
        "  num_blocks: 10\n",
        "  num_blocks: 10\n  num_blokcs: 3\n",
    ));
    let text = e.to_string();
    assert!(
        matches!(e.kind, ConfigErrorKind::UnknownKey { .. }),
        "{text}"
    );
    assert_eq!(e.step, Some(1));
    assert!(text.contains("`num_blokcs`"), "{text}");
    assert!(text.contains("did you mean `num_blocks`"), "{text}");

    let e = error(&with(
        "    coalesce_mean: 3.0\n",
        "    coalesce_meen: 3.0\n",
    ));
    let text = e.to_string();
    assert!(text.contains("`objective.coalesce_meen`"), "{text}");
    assert!(
        text.contains("did you mean `objective.coalesce_mean`"),
        "{text}"
    );

    // A key of the other generation's schema says where it belongs.
    let e = error(&with("    coalesce_mean: 3.0\n", "    min_coalesce: 1\n"));
    let text = e.to_string();
    assert!(text.contains("`objective.min_coalesce`"), "{text}");
    assert!(text.contains("!ApprovalsTest"), "{text}");
    let e = error(&with(
        "  num_blocks: 10\n",
        "  num_blocks: 10\n  error: 0\n",
    ));
    assert!(e.to_string().contains("`error`"), "{e}");
    let e = error(&with(
        "  latency: null\n",
        "  latency:\n    min_latency: {secs: 0, nanos: 1}\n    max_latency: {secs: 0, nanos: 2}\n",
    ));
    assert!(e.to_string().contains("`latency.min_latency`"), "{e}");

    // And in the other direction.
    let g1 = std::fs::read_to_string(data("g1_example.yaml")).unwrap();
    let e = error(&g1.replace("  error: 0\n", "  error: 0\n  needed_approvals: 30\n"));
    let text = e.to_string();
    assert!(text.contains("`needed_approvals`"), "{text}");
    assert!(text.contains("!ApprovalVoting"), "{text}");

    let e = error(&BASE.replace("TestConfiguration:", "TestConfigurations:"));
    assert!(e.to_string().contains("`TestConfigurations`"), "{e}");
}

#[test]
fn unknown_key_in_a_file_names_the_file() {
    let dir = std::env::temp_dir().join(format!("tranche-config-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("typo.yaml");
    std::fs::write(&path, with("  n_cores: 100\n", "  n_core: 100\n")).unwrap();
    let e = config::load(&path).unwrap_err();
    std::fs::remove_dir_all(&dir).unwrap();
    let text = e.to_string();
    assert!(
        text.starts_with(&format!("{}: step 1: ", path.display())),
        "{text}"
    );
    assert!(text.contains("`n_core`"), "{text}");
}

#[test]
fn wrong_types_are_rejected() {
    let cases = [
        (
            "  n_validators: 500\n",
            "  n_validators: \"500\"\n",
            "n_validators",
        ),
        ("  n_cores: 100\n", "  n_cores: 100.5\n", "n_cores"),
        (
            "    enable_assignments_v2: true\n",
            "    enable_assignments_v2: yes\n",
            "objective.enable_assignments_v2",
        ),
        (
            "    coalesce_mean: 3.0\n",
            "    coalesce_mean: three\n",
            "objective.coalesce_mean",
        ),
        (
            "    workdir_prefix: \"/tmp/\"\n",
            "    workdir_prefix: [a]\n",
            "objective.workdir_prefix",
        ),
        ("  latency: null\n", "  latency: 30\n", "latency"),
        ("  num_blocks: 10\n", "  num_blocks: null\n", "num_blocks"),
    ];
    for (from, to, key) in cases {
        let e = error(&with(from, to));
        assert!(
            matches!(e.kind, ConfigErrorKind::WrongType { .. }),
            "{to}: {e}"
        );
        assert!(e.to_string().contains(&format!("`{key}` must be")), "{e}");
    }
    let e = error("TestConfiguration: 3\n");
    assert!(matches!(e.kind, ConfigErrorKind::WrongType { .. }), "{e}");
}

#[test]
fn impossible_values_are_rejected() {
    let cases: &[(&str, &str, &str)] = &[
        (
            "  n_validators: 500\n",
            "  n_validators: 0\n",
            "n_validators",
        ),
        (
            "  n_validators: 500\n",
            "  n_validators: 1\n",
            "n_validators",
        ),
        (
            "  n_validators: 500\n",
            "  n_validators: -5\n",
            "n_validators",
        ),
        // 500 validators in groups of 5: at most 100 cores.
        ("  n_cores: 100\n", "  n_cores: 101\n", "n_cores"),
        ("  n_cores: 100\n", "  n_cores: 0\n", "n_cores"),
        (
            "  n_cores: 100\n",
            "  n_cores: 100\n  max_validators_per_core: 0\n",
            "max_validators_per_core",
        ),
        (
            "  connectivity: 100\n",
            "  connectivity: 101\n",
            "connectivity",
        ),
        (
            "  connectivity: 100\n",
            "  connectivity: 0\n",
            "connectivity",
        ),
        ("  num_blocks: 10\n", "  num_blocks: 0\n", "num_blocks"),
        ("  num_blocks: 10\n", "  num_blocks: 10001\n", "num_blocks"),
        (
            "  bandwidth: 524288000000\n",
            "  bandwidth: 5\n",
            "bandwidth",
        ),
        (
            "  min_pov_size: 1120\n",
            "  min_pov_size: 6000\n",
            "min_pov_size",
        ),
        (
            "    coalesce_std_dev: 1.0\n",
            "    coalesce_std_dev: -1.0\n",
            "objective.coalesce_std_dev",
        ),
        (
            "    coalesce_mean: 3.0\n",
            "    coalesce_mean: .nan\n",
            "objective.coalesce_mean",
        ),
        (
            "    coalesce_tranche_diff: 12\n",
            "    coalesce_tranche_diff: 0\n",
            "objective.coalesce_tranche_diff",
        ),
        (
            "    workdir_prefix: \"/tmp/\"\n",
            "    workdir_prefix: \"\"\n",
            "objective.workdir_prefix",
        ),
        (
            "  latency: null\n",
            "  latency:\n    mean_latency_ms: 30\n    std_dev: -2.0\n",
            "latency.std_dev",
        ),
        (
            "  n_validators: 500\n",
            "  n_validators: 5000000000\n",
            "n_validators",
        ),
    ];
    for (from, to, key) in cases {
        let e = error(&with(from, to));
        assert!(
            matches!(e.kind, ConfigErrorKind::Impossible { .. }),
            "{to}: {e}"
        );
        assert!(
            e.to_string().contains(&format!("impossible `{key}: ")),
            "{e}"
        );
    }
    // Connectivity that leaves no peer: 1% of 49 peers is 0.
    let e = error(
        &with("  n_validators: 500\n", "  n_validators: 50\n")
            .replace("  n_cores: 100\n", "  n_cores: 10\n")
            .replace("  connectivity: 100\n", "  connectivity: 1\n"),
    );
    assert!(e.to_string().contains("connects none"), "{e}");

    // G1 bounds.
    let g1 = std::fs::read_to_string(data("g1_example.yaml")).unwrap();
    for (from, to, key) in [
        (
            "  n_included_candidates: 50\n",
            "  n_included_candidates: 101\n",
            "n_included_candidates",
        ),
        (
            "    min_coalesce: 1\n",
            "    min_coalesce: 7\n",
            "objective.min_coalesce",
        ),
        (
            "    min_coalesce: 1\n",
            "    min_coalesce: 0\n",
            "objective.min_coalesce",
        ),
        ("  error: 0\n", "  error: 101\n", "error"),
        ("  n_cores: 100\n", "  n_cores: 501\n", "n_cores"),
        (
            "      nanos: 1000000\n",
            "      nanos: 200000000\n",
            "latency.min_latency",
        ),
    ] {
        assert!(g1.contains(from), "{from}");
        let e = error(&g1.replacen(from, to, 1));
        assert!(
            matches!(e.kind, ConfigErrorKind::Impossible { .. }),
            "{to}: {e}"
        );
        assert!(
            e.to_string().contains(&format!("impossible `{key}: ")),
            "{e}"
        );
    }
}

#[test]
fn missing_required_keys_are_named() {
    let e = error(&with("  num_blocks: 10\n", ""));
    assert!(
        matches!(&e.kind, ConfigErrorKind::MissingKey { key, .. } if key == "num_blocks"),
        "{e}"
    );
    let e = error(&with("    coalesce_tranche_diff: 12\n", ""));
    assert!(
        e.to_string().contains("`objective.coalesce_tranche_diff`"),
        "{e}"
    );
    let e = error(&with(
        "  latency: null\n",
        "  latency:\n    mean_latency_ms: 30\n",
    ));
    assert!(e.to_string().contains("`latency.std_dev`"), "{e}");
    let g1 = std::fs::read_to_string(data("g1_example.yaml")).unwrap();
    let e = error(&g1.replace("  n_included_candidates: 50\n", ""));
    assert!(e.to_string().contains("`n_included_candidates`"), "{e}");
    let e = error(&g1.replace("    workdir_prefix: \"/tmp/\"\n", ""));
    assert!(e.to_string().contains("`objective.workdir_prefix`"), "{e}");
    let e = error("TestConfiguration:\n- n_validators: 5\n");
    assert!(e.to_string().contains("`objective`"), "{e}");
}

#[test]
fn a_missing_file_is_one_line() {
    let path = workspace_root().join("examples/no_such_file.yaml");
    let e = config::load(&path).unwrap_err();
    assert!(matches!(e.kind, ConfigErrorKind::Read(_)));
    let text = e.to_string();
    assert!(!text.contains('\n'));
    assert!(text.starts_with(&path.display().to_string()), "{text}");
    assert!(text.contains("cannot read the file"), "{text}");
}

#[test]
fn malformed_files_are_one_line_errors() {
    for yaml in [
        "TestConfiguration:\n- objective: !ApprovalVoting\n  n_cores: [1,\n",
        "",
        "- 1\n- 2\n",
        "TestConfiguration: []\n",
        "TestConfiguration:\n- 5\n",
        "TestConfiguration:\n- objective: !ApprovalVoting 7\n  num_blocks: 1\n",
        "TestConfiguration:\n- objective: ApprovalVoting\n  num_blocks: 1\n",
    ] {
        error(yaml);
    }
    let e = error(&BASE.replace("!ApprovalVoting", "!ApprovalVotes"));
    assert!(
        matches!(&e.kind, ConfigErrorKind::UnknownObjective(o) if o == "ApprovalVotes"),
        "{e}"
    );
    // Duplicate keys are rejected by the YAML layer.
    let e = error(&with("  n_cores: 100\n", "  n_cores: 100\n  n_cores: 50\n"));
    assert!(matches!(e.kind, ConfigErrorKind::Yaml(_)), "{e}");
}

#[test]
fn other_objectives_are_skipped_but_not_alone() {
    let yaml = format!(
        "{BASE}- objective: DataAvailabilityWrite\n  n_validators: 10\n  whatever: 1\n\
         - objective: !DataAvailabilityRead\n    fetch_from_backers: true\n  num_blocks: 3\n"
    );
    let cfg = parse(&yaml).unwrap();
    assert_eq!(cfg.steps.len(), 1);
    let skipped: Vec<_> = cfg
        .skipped
        .iter()
        .map(|s| (s.step, s.objective.as_str()))
        .collect();
    assert_eq!(
        skipped,
        [(2, "DataAvailabilityWrite"), (3, "DataAvailabilityRead")]
    );
    let e = error("TestConfiguration:\n- objective: StatementDistribution\n");
    assert!(e.to_string().contains("no approval step"), "{e}");
}

#[test]
fn several_steps_keep_their_order_and_names() {
    let two = format!(
        "{BASE}{}",
        BASE.replace("TestConfiguration:\n", "")
            .replace("num_blocks: 10", "num_blocks: 2")
    );
    let cfg = parse(&two).unwrap();
    assert_eq!(cfg.steps.len(), 2);
    assert_eq!(cfg.steps[1].step, 2);
    assert_eq!(cfg.steps[1].num_blocks, 2);
    assert_eq!(cfg.steps[1].name, "test.yaml #2 ApprovalVoting");
    // Errors name the step.
    let bad = format!(
        "{BASE}{}",
        BASE.replace("TestConfiguration:\n", "")
            .replace("n_cores: 100", "n_cores: 0")
    );
    let e = error(&bad);
    assert_eq!(e.step, Some(2));
    assert!(e.to_string().starts_with("test.yaml: step 2: "), "{e}");
}

/// `blocks_per_session` (tranche's extension of `!ApprovalVoting`): a new
/// session every N blocks, bounded, absent by default, not a G1 key.
#[test]
fn blocks_per_session_is_read_and_bounded() {
    let yaml = |extra: &str| {
        format!(
            "TestConfiguration:
- objective: !ApprovalVoting
    coalesce_mean: 1.0
    coalesce_std_dev: 0.0
    coalesce_tranche_diff: 12
{extra}  n_validators: 20
  n_cores: 4
  num_blocks: 4
"
        )
    };
    let plain = parse(&yaml("")).unwrap();
    assert_eq!(plain.steps[0].blocks_per_session, None);
    let two = parse(&yaml("    blocks_per_session: 2\n")).unwrap();
    assert_eq!(two.steps[0].blocks_per_session, Some(2));
    assert_eq!(
        two.steps[0].generation_params(0).blocks_per_session,
        Some(2)
    );
    assert_ne!(
        plain.steps[0].generation_params(0).fingerprint(),
        two.steps[0].generation_params(0).fingerprint()
    );
    let e = parse(&yaml("    blocks_per_session: 0\n"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("blocks_per_session") && !e.contains('\n'), "{e}");
}
