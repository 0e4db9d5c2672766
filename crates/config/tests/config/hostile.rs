//! Hostile test-sequence files: what is not a regular file, what is too
//! large, too deep, too big to run or vacuous. Each case must end within a
//! generous deadline in a one-line error naming the problem (the key, the
//! value, the bound), never a panic or a hang.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use tranche_cli::input;
use tranche_config::{self as config, ConfigError, ConfigErrorKind, MAX_DEPTH};

/// Far above what any case needs; a hang or a quadratic parse exceeds it.
const DEADLINE: Duration = Duration::from_secs(10);

/// A small, valid G2/G3 step; cases replace one line to break it.
const BASE: &str = "\
TestConfiguration:
- objective: !ApprovalVoting
    coalesce_tranche_diff: 12
    num_no_shows_per_candidate: 0
  n_validators: 60
  n_cores: 12
  needed_approvals: 10
  num_blocks: 3
";

fn with(from: &str, to: &str) -> String {
    assert!(BASE.contains(from), "{from}");
    BASE.replacen(from, to, 1)
}

/// Runs `f` under the deadline and checks its error is one line that
/// contains every one of `needles`.
fn refused(needles: &[&str], f: impl FnOnce() -> Result<config::BenchConfig, ConfigError>) {
    let start = Instant::now();
    let e = f().expect_err("must be refused");
    let took = start.elapsed();
    assert!(took < DEADLINE, "took {took:?}");
    let text = e.to_string();
    assert!(!text.contains('\n'), "not one line: {text}");
    for n in needles {
        assert!(text.contains(n), "`{n}` missing from: {text}");
    }
}

fn parse(yaml: &str) -> Result<config::BenchConfig, ConfigError> {
    config::parse(yaml, "hostile.yaml")
}

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tranche-hostile-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn the_base_case_is_accepted() {
    assert!(parse(BASE).is_ok());
}

#[test]
fn devices_fifos_and_folders_are_not_read() {
    refused(&["/dev/zero", "not a regular file"], || {
        config::load(Path::new("/dev/zero"))
    });
    let d = temp_dir("fifo");
    refused(&["a folder"], || config::load(&d));
    let fifo = d.join("pipe.yaml");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    refused(&["pipe.yaml", "not a regular file"], || config::load(&fifo));
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn a_huge_or_binary_file_is_refused_without_reading_it_all() {
    let d = temp_dir("huge");
    let big = d.join("big.yaml");
    let f = std::fs::File::create(&big).unwrap();
    // Sparse: no disk used, but larger than the limit.
    f.set_len(input::MAX_INPUT_FILE_BYTES + 1).unwrap();
    let max = input::MAX_INPUT_FILE_BYTES.to_string();
    refused(&["big.yaml", "larger than", &max], || config::load(&big));
    let bin = d.join("bin.yaml");
    std::fs::write(&bin, [0xff, 0xfe, 0x00]).unwrap();
    refused(&["not UTF-8"], || config::load(&bin));
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn deep_nesting_is_refused_before_parsing() {
    let max = MAX_DEPTH.to_string();
    for text in [
        "[".repeat(200_000),
        "{".repeat(200_000),
        format!("TestConfiguration:\n- {}", "[".repeat(200_000)),
        "- ".repeat(100_000),
        (0..200).map(|i| format!("{}k:\n", " ".repeat(i))).collect(),
    ] {
        refused(&["nesting deeper than", &max, "line"], || parse(&text));
    }
    let e = parse(&"[".repeat(1000)).unwrap_err();
    assert!(matches!(e.kind, ConfigErrorKind::Bounds(_)), "{e}");
}

#[test]
fn alias_bombs_and_long_flat_files_end_quickly() {
    let mut bomb = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 1..10 {
        let p = i - 1;
        bomb.push_str(&format!(
            "a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"
        ));
    }
    bomb.push_str("TestConfiguration: *a9\n");
    refused(&["hostile.yaml"], || parse(&bomb));
    // Many shallow steps: linear, and each is checked.
    let steps = BASE.replacen("TestConfiguration:\n", "", 1).repeat(5_000);
    let many = format!("TestConfiguration:\n{steps}  n_cores: 0\n");
    refused(&["n_cores"], || parse(&many));
}

/// Keys past their bound (`objective.` keys are approval options): key,
/// value, the bound the error must name.
const OUT_OF_BOUNDS: &str = "
n_validators 20001 20000
n_validators 4294967295 20000
n_cores 2001 2000
num_blocks 10001 10000
num_blocks 4294967295 10000
needed_approvals 20001 20000
n_delay_tranches 4294967295 10000
n_delay_tranches 10001 10000
zeroth_delay_tranche_width 4294967295 10000
relay_vrf_modulo_samples 4294967295 2000
no_show_slots 4294967295 1000
no_show_slots 1001 1000
max_validators_per_core 4294967295 20000
objective.coalesce_tranche_diff 4294967295 10000
objective.last_considered_tranche 4294967295 10000
objective.num_no_shows_per_candidate 4294967295 20000
objective.coalesce_mean 1e30 2000
objective.coalesce_std_dev 1e9 2000
";

/// Every size and tick key past its bound, and `u32::MAX`: refused at
/// parse time with the key, the value and the bound.
#[test]
fn every_size_and_tick_key_is_bounded() {
    for case in OUT_OF_BOUNDS.lines().filter(|l| !l.is_empty()) {
        let [key, value, bound]: [&str; 3] =
            case.split(' ').collect::<Vec<_>>().try_into().unwrap();
        // Put the line first in its mapping; drop the base's own setting.
        let (at, line) = match key.strip_prefix("objective.") {
            Some(option) => (
                "- objective: !ApprovalVoting\n",
                format!("- objective: !ApprovalVoting\n    {option}: {value}\n"),
            ),
            None => (
                "  n_validators: 60\n",
                format!("  {key}: {value}\n  n_validators: 60\n"),
            ),
        };
        let name = key.trim_start_matches("objective.");
        let yaml = dedupe_key(&with(at, &line), name);
        refused(&[&format!("`{key}: "), bound], || parse(&yaml));
        if !key.contains("coalesce_") {
            refused(&[&format!("`{key}: {value}`")], || parse(&yaml));
        }
    }
}

#[test]
fn g1_coalescing_and_send_till_are_bounded() {
    let g1 = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/g1_example.yaml"),
    )
    .unwrap();
    assert!(parse(&g1).is_ok());
    for (key, bound) in [("max_coalesce", "2000"), ("send_till_tranche", "10000")] {
        let opts = "- objective: !ApprovalsTest\n";
        assert!(g1.contains(opts));
        let yaml = g1.replacen(opts, &format!("{opts}    {key}: 4294967295\n"), 1);
        let yaml = dedupe_key(&yaml, key);
        refused(&[key, "4294967295", bound], || parse(&yaml));
    }
}

/// Drops every later line setting `key`, keeping the first.
fn dedupe_key(yaml: &str, key: &str) -> String {
    let mut seen = false;
    yaml.lines()
        .filter(|l| {
            let hit = l.trim_start().starts_with(&format!("{key}:"));
            let keep = !(hit && seen);
            seen |= hit;
            keep
        })
        .map(|l| format!("{l}\n"))
        .collect()
}

#[test]
fn the_largest_bounded_step_has_a_finite_end_tick() {
    let yaml = with("  num_blocks: 3\n", "  num_blocks: 10000\n").replacen(
        "    num_no_shows_per_candidate: 0\n",
        "    num_no_shows_per_candidate: 20000\n",
        1,
    ) + "  n_delay_tranches: 10000\n  no_show_slots: 1000\n";
    let cfg = parse(&yaml).expect("within every bound");
    let s = &cfg.steps[0];
    let end = s.last_block_tick().unwrap() + s.drain_ticks().unwrap();
    assert!(end < 1 << 32, "{end}");
}

#[test]
fn vacuous_steps_are_refused_with_the_reason() {
    let vacuous = "every candidate is approved at import: nothing would be measured";
    for (yaml, why) in [
        (
            with("  needed_approvals: 10\n", "  needed_approvals: 0\n"),
            "needed_approvals is 0",
        ),
        (
            with("  needed_approvals: 10\n", "  needed_approvals: 56\n"),
            "needed_approvals 56 exceeds the 55 validators outside a backing group of 5",
        ),
    ] {
        let cfg = parse(&yaml).expect("parses: only the run refuses it");
        let e = config::check_not_vacuous(&cfg).unwrap_err();
        assert!(matches!(e.kind, ConfigErrorKind::Vacuous { .. }), "{e}");
        let text = e.to_string();
        assert!(!text.contains('\n'), "{text}");
        for n in [vacuous, why, "hostile.yaml: step 1", "--allow-vacuous"] {
            assert!(text.contains(n), "`{n}` missing: {text}");
        }
    }
    // 55 outside the group, 55 needed: measured.
    let edge = parse(&with(
        "  needed_approvals: 10\n",
        "  needed_approvals: 55\n",
    ))
    .unwrap();
    assert!(config::check_not_vacuous(&edge).is_ok());
}

#[test]
fn the_guard_the_examples_and_the_default_are_not_vacuous() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = vec![root.join("ci/guard.yaml")];
    for e in std::fs::read_dir(root.join("examples")).unwrap() {
        files.push(e.unwrap().path());
    }
    files.push(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/g1_example.yaml"));
    assert!(files.len() >= 7, "{files:?}");
    for f in files {
        let cfg = config::load(&f).unwrap_or_else(|e| panic!("{e}"));
        config::check_not_vacuous(&cfg).unwrap_or_else(|e| panic!("{e}"));
    }
    config::check_not_vacuous(&config::embedded_default().unwrap()).unwrap();
}

/// Found by the config_parser fuzz target: a complex key (`?`) spanning
/// carriage returns, and quoted keys and tags holding line breaks or escape
/// sequences, were printed raw; errors escape them and stay one line.
#[test]
fn keys_and_values_with_control_characters_stay_one_line() {
    for text in [
        "?\r>#\r A G1 (hZrt    min_coales?%: 1\n",
        "\"Test\\nConfiguration\": []\n",
        "TestConfiguration:\n- objective: !ApprovalVoting\n    \"a\\r\\nb\": 1\n",
        "TestConfiguration:\n- objective: \"Approval\\nVoting\\u001b[2J\"\n",
        "TestConfiguration:\n- objective: !Appro%0Aval 1\n",
    ] {
        let e = parse(text).unwrap_err().to_string();
        assert!(
            !e.contains('\n') && !e.contains('\r') && !e.contains('\u{1b}'),
            "{e:?}"
        );
        assert!(e.starts_with("hostile.yaml: "), "{e}");
    }
}

/// Issue 32: an error quoting a 10 MB value was a 10 MB line. A value, a
/// key or a tag from the file is shown cut, with its length: a value's
/// line stays within 200 bytes, one with a longer explanation close to it.
/// (Issue 43: a value beyond `MAX_VALUE_BYTES` is refused before parsing,
/// naming its line; one just under it is cut.)
#[test]
fn a_ten_megabyte_value_key_or_tag_gives_a_short_error_line() {
    let huge = "A".repeat(10_000_000);
    for text in [
        with("  n_cores: 12\n", &format!("  n_cores: \"{huge}\"\n")),
        BASE.replacen("!ApprovalVoting", &format!("!{huge}"), 1),
    ] {
        let start = Instant::now();
        let e = parse(&text).unwrap_err().to_string();
        assert!(start.elapsed() < DEADLINE, "took {:?}", start.elapsed());
        assert!(e.len() <= 200, "{} bytes", e.len());
        assert!(
            e.contains("a value longer than 65536 bytes at line "),
            "{e}"
        );
    }
    let big = "A".repeat(60_000);
    let cut = "…` (60 000 bytes)";
    let check = |case: &str, e: String, needle: &str, most: usize| {
        assert!(
            e.len() <= most,
            "{case}: {} bytes: {:?}",
            e.len(),
            e.get(..300)
        );
        assert!(e.contains(needle), "{case}: {e}");
    };
    for (case, text, needle, most) in [
        (
            "a string value",
            with("  n_cores: 12\n", &format!("  n_cores: \"{big}\"\n")),
            "…\" (60 000 bytes)",
            200,
        ),
        (
            "a key",
            with("  n_cores: 12\n", &format!("  ? {big}\n  : 1\n")),
            cut,
            200,
        ),
        (
            "an objective's tag",
            BASE.replacen("!ApprovalVoting", &format!("!{big}"), 1),
            cut,
            250,
        ),
    ] {
        let start = Instant::now();
        let e = parse(&text).unwrap_err().to_string();
        assert!(
            start.elapsed() < DEADLINE,
            "{case}: took {:?}",
            start.elapsed()
        );
        check(case, e, needle, most);
    }
    for (case, text, needle) in [
        (
            "node.layout",
            format!("!ApprovalNetwork\nnode:\n  layout: {big}\n"),
            cut,
        ),
        ("its tag", format!("!{big}\n"), "…` (60 001 bytes)"),
        ("a key", format!("!ApprovalNetwork\n? {big}\n: 1\n"), cut),
    ] {
        let e = config::approval_network::parse(&text, "net.yaml")
            .unwrap_err()
            .to_string();
        check(case, e, needle, 200);
    }
}

/// Issue 32: a file given by mistake (a sweep's `base: /etc/passwd`) was
/// printed whole in the error, and a 60 MB one-scalar file gave a 60 MB
/// line. The whole file is described by its kind and size, never echoed.
#[test]
fn a_file_that_is_one_string_is_never_echoed() {
    let secret = "root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin\n".repeat(20);
    let huge = "A".repeat(60_000_000);
    for text in [secret.as_str(), huge.as_str()] {
        let test_sequence = parse(text).unwrap_err().to_string();
        let network = config::approval_network::parse(text, "base.yaml")
            .unwrap_err()
            .to_string();
        for e in [test_sequence, network] {
            assert!(e.len() <= 200, "{} bytes", e.len());
            assert!(
                (e.contains("found a string of ") && e.ends_with(" bytes"))
                    || e.contains("a value longer than 65536 bytes at line 1"),
                "{e}"
            );
            assert!(!e.contains("root:") && !e.contains("AAAA"), "{e}");
        }
    }
}

/// Issue 32: an integer beyond 64 bits was refused as "invalid type:
/// integer `…` as u128, expected any YAML value". It is too large for its
/// key, and the error gives the bound.
#[test]
fn an_integer_beyond_64_bits_is_too_large_for_its_key() {
    let e = parse(&with(
        "  n_cores: 12\n",
        "  n_cores: 99999999999999999999\n",
    ))
    .unwrap_err()
    .to_string();
    assert!(!e.contains("u128") && !e.contains("any YAML value"), "{e}");
    assert!(
        e.contains("impossible `n_cores: 99999999999999999999`: too large: at most 4294967295"),
        "{e}"
    );
    let e = parse(&with(
        "  n_cores: 12\n",
        "  n_cores: -99999999999999999999\n",
    ))
    .unwrap_err()
    .to_string();
    assert!(e.contains("must not be negative"), "{e}");
    // A number key takes it as a (large) number, then its own bound.
    let e = parse(&with(
        "    coalesce_tranche_diff: 12\n",
        "    coalesce_tranche_diff: 12\n    coalesce_mean: 99999999999999999999\n",
    ))
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("objective.coalesce_mean") && e.contains("2000"),
        "{e}"
    );
    let e = config::approval_network::parse(
        "!ApprovalNetwork\nn_validators: 99999999999999999999\n",
        "net.yaml",
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("impossible `n_validators: 99999999999999999999`: too large: at most"),
        "{e}"
    );
}

/// Issue 32: a `node` value out of bounds printed Rust's internal form
/// (`NodeShape { layout: Parallel, … }`). The error names the key and the
/// value as the file has them, and the bound.
#[test]
fn a_node_error_names_the_key_the_value_and_the_bound() {
    for (node, want) in [
        (
            "{layout: parallel, workers: 0}",
            "`node.workers` = 0: must be 1 to 1024",
        ),
        // Issue 60: workers mean nothing to the classic layout.
        (
            "{layout: classic, workers: 4}",
            "impossible `node.workers: 4`: the classic layout has one distribution thread: \
             workers are for layout parallel",
        ),
        ("{cores: 0}", "`node.cores` = 0: must be 1 to 4096"),
        (
            "{cpu_scale: -1}",
            "`node.cpu_scale` = -1: must be a finite number above 0",
        ),
        (
            "{batch: Moment}",
            "impossible `node.batch: Moment`: must be notification or moment",
        ),
    ] {
        let e =
            config::approval_network::parse(&format!("!ApprovalNetwork\nnode: {node}\n"), "n.yaml")
                .unwrap_err()
                .to_string();
        assert_eq!(e, format!("n.yaml: {want}"));
    }
}

/// Issue 41: a count of one agrees with its noun in the error ("form 1
/// backing groups, one per core: at most 1 cores" before).
#[test]
fn one_backing_group_is_singular_in_the_error() {
    let yaml = with("  n_validators: 60\n", "  n_validators: 4\n").replacen(
        "  n_cores: 12\n",
        "  n_cores: 2\n",
        1,
    );
    let text = parse(&yaml).unwrap_err().to_string();
    assert!(
        text.contains(
            "4 validators in groups of 5 form 1 backing group, one per core: at most 1 core"
        ),
        "{text}"
    );
}
