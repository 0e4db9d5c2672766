//! The embedded default through the command line's entry point: every
//! block approved by every honest validator, the table printed, the JSON
//! written and readable.

use clap::Parser;
use tranche_bench::network_cli::{execute, NetworkArgs};

#[derive(Parser)]
struct Cli {
    #[command(flatten)]
    args: NetworkArgs,
}

#[derive(Parser)]
struct SweepCli {
    #[command(flatten)]
    args: tranche_bench::sweep_network::SweepArgs,
}

fn args(extra: &[&str]) -> NetworkArgs {
    let mut argv = vec!["network"];
    argv.extend_from_slice(extra);
    Cli::try_parse_from(argv).unwrap().args
}

#[test]
fn the_default_approves_every_block_at_every_honest_validator() {
    let json = std::env::temp_dir().join(format!("tranche-simulation-{}.json", std::process::id()));
    let html = json.with_extension("html");
    let path = json.to_str().unwrap();
    execute(&args(&[
        "--quiet",
        "--threads",
        "2",
        "--json",
        path,
        "--html",
        html.to_str().unwrap(),
    ]))
    .unwrap();
    let page = std::fs::read_to_string(&html).unwrap();
    std::fs::remove_file(&html).unwrap();
    well_formed(&page);
    let svgs: Vec<&str> = page.split("<svg").skip(1).collect();
    // Approval boxes, never approved, sent per block, bytes out (no
    // finality, no CPU model in the default).
    assert_eq!(svgs.len(), 4);
    // The metadata table; the configuration as YAML; the table's legend.
    for key in [
        "<th>seed</th><td>0</td>",
        "<th>commit</th>",
        "<th>command</th>",
        "\nn_validators: 100\n",
        "\ncheck_delay_ms:\n  mean: ",
        "legend: ",
    ] {
        assert!(page.contains(key), "{key}");
    }
    // Readable ticks: round numbers (at most two significant digits, no
    // 3146 / 6291 / 9437), or, on an axis spanning the data (the approval
    // boxes, 12 527..12 563 ms), evenly stepped by a round step.
    let significant = |n: &str| {
        n.replace('.', "")
            .trim_start_matches('0')
            .trim_end_matches('0')
            .len()
    };
    for svg in &svgs {
        let mut long: Vec<f64> = numbers(svg)
            .iter()
            .filter(|n| significant(n) > 2)
            .map(|n| n.parse().unwrap())
            .collect();
        long.sort_by(f64::total_cmp);
        long.dedup();
        let steps: Vec<f64> = long.windows(2).map(|w| w[1] - w[0]).collect();
        assert!(
            steps.windows(2).all(|w| (w[0] - w[1]).abs() < 1e-6),
            "ticks {long:?}"
        );
        if let Some(step) = steps.first() {
            assert!(
                significant(&format!("{step}")) <= 1,
                "step {step} of {long:?}"
            );
        }
    }
    // The bytes plot has x ticks (validator ranks), not only y ticks.
    let bytes_ticks = numbers(svgs[3]);
    assert!(
        bytes_ticks.iter().any(|n| n.parse::<f64>() == Ok(50.0)),
        "{bytes_ticks:?}"
    );
    let text = std::fs::read_to_string(&json).unwrap();
    std::fs::remove_file(&json).unwrap();
    let report: tranche_report::network::SimulationReport = serde_json::from_str(&text).unwrap();
    assert_eq!(report.n_validators, 100);
    // The same `meta` as every JSON of the tool.
    let meta = report.meta.as_ref().expect("a network report has its meta");
    assert_eq!(
        (meta.tool.as_str(), meta.kind.as_str()),
        ("tranche", "network")
    );
    assert_eq!(meta.seed, 0);
    assert!(!meta.date.is_empty() && !meta.commit.is_empty() && meta.machine.nproc > 0);
    assert_eq!(meta.config_hash.len(), 16);
    assert!(
        meta.config.contains(&"n_validators: 100".to_owned()),
        "{:?}",
        meta.config
    );
    assert_eq!(report.blocks.len(), 5);
    assert!(report.all_approved);
    for b in &report.blocks {
        assert_eq!(b.approved, 100);
        assert!(b.min_ms.unwrap() <= b.p50_ms.unwrap());
        assert!(b.p99_ms.unwrap() <= b.max_ms.unwrap());
    }
    assert!(report.bytes_out.min > 0);
}

/// The numbers written as text in an SVG: its tick labels.
fn numbers(svg: &str) -> Vec<String> {
    svg.split("<text")
        .skip(1)
        .filter_map(|t| {
            let body = t.split_once('>')?.1.split_once("</text>")?.0.trim();
            (!body.is_empty() && body.parse::<f64>().is_ok()).then(|| body.to_owned())
        })
        .collect()
}

/// The page parses as XML from end to end.
fn well_formed(page: &str) {
    let mut reader = quick_xml::Reader::from_str(page);
    let mut depth = 0i32;
    loop {
        match reader.read_event().unwrap() {
            quick_xml::events::Event::Start(_) => depth += 1,
            quick_xml::events::Event::End(_) => depth -= 1,
            quick_xml::events::Event::Eof => break,
            _ => {}
        }
    }
    assert_eq!(depth, 0);
}

#[test]
fn bad_flags_and_files_are_one_line_errors() {
    // Every count is bounded where it is parsed (the binary's wording:
    // `network_cli::every_count_a_flag_takes_is_bounded`).
    for (flag, value) in [
        ("--threads", "0"),
        ("--threads", "257"),
        ("--processes", "0"),
        ("--processes", "65"),
    ] {
        let e = Cli::try_parse_from(["network", flag, value]).err().unwrap();
        assert_eq!(e.kind(), clap::error::ErrorKind::ValueValidation, "{flag}");
    }
    let e = execute(&args(&["--threads", "256", "--processes", "9"])).unwrap_err();
    assert_eq!(
        e.to_string(),
        "--threads 256 x --processes 9 is 2304 workers; at most 2048"
    );
    let e = execute(&args(&["--processes", "2", "--process", "2"])).unwrap_err();
    assert_eq!(e.to_string(), "--process 2 is not below --processes 2");
    let e = execute(&args(&["--validators", "1"])).unwrap_err();
    assert!(e.to_string().contains("`n_validators` = 1"), "{e}");
    let e = execute(&args(&["/nonexistent/x.yaml"])).unwrap_err();
    assert!(e.to_string().starts_with("/nonexistent/x.yaml: "), "{e}");
    assert!(!e.to_string().contains('\n'));
    let hosts = std::env::temp_dir().join(format!("tranche-hosts-{}", std::process::id()));
    std::fs::write(&hosts, "localhost\n").unwrap();
    let e = execute(&args(&[
        "--processes",
        "2",
        "--hostfile",
        hosts.to_str().unwrap(),
    ]))
    .unwrap_err();
    std::fs::remove_file(&hosts).unwrap();
    assert!(e.to_string().contains("is not host:port"), "{e}");
    assert!(Cli::try_parse_from(["network", "--verify", "sometimes"]).is_err());
    // 2 000 validators on 400 cores for 10 000 blocks fit nowhere.
    let e = execute(&args(&[
        "--validators",
        "2000",
        "--cores",
        "400",
        "--blocks",
        "10000",
    ]))
    .unwrap_err();
    assert!(e.to_string().contains("MiB per process"), "{e}");
    assert!(!e.to_string().contains('\n'));
    let e = execute(&args(&[
        "--blocks",
        "1",
        "--validators",
        "40",
        "--cores",
        "4",
        "--json",
        "/nonexistent/r.json",
    ]))
    .unwrap_err();
    assert!(
        e.to_string().starts_with("--json /nonexistent/r.json: "),
        "{e}"
    );
    // The other objective gets a hint, not the YAML parser's words.
    let seq = std::env::temp_dir().join(format!("tranche-seq-{}.yaml", std::process::id()));
    std::fs::write(&seq, tranche_config::DEFAULT_YAML).unwrap();
    let e = execute(&args(&[seq.to_str().unwrap()])).unwrap_err();
    std::fs::remove_file(&seq).unwrap();
    assert!(
        e.to_string()
            .ends_with("this is an !ApprovalVoting file; use `tranche run`"),
        "{e}"
    );
}

#[test]
fn the_default_seed_is_0_as_run() {
    assert_eq!(args(&[]).seed, 0);
}

#[test]
fn the_shipped_examples_parse() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../simulation/examples");
    let mut n = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "yaml") {
            let text = std::fs::read_to_string(&path).unwrap();
            if text.contains("!ApprovalSweep") {
                let args = SweepCli::try_parse_from(["sweep", path.to_str().unwrap()])
                    .unwrap()
                    .args;
                assert_eq!(
                    tranche_bench::sweep_network::grid(&args).unwrap().0.len(),
                    6
                );
            } else {
                tranche_config::approval_network::load(&path).unwrap();
            }
            n += 1;
        }
    }
    assert_eq!(n, 6);
}
