//! The metadata of every JSON file the tool writes (its `meta` object:
//! `tranche run`, `network`, `sweep run`, `sweep network` — and of the
//! YAML of `calibrate`) and of the terminal report's header: which
//! program, which kind of result ([`kind`]), which commit, which command,
//! when, on what machine, and what decides whether two results can be
//! compared at all — the result format's version, the database, the seed,
//! the configuration's hash and a restart (`compare`, `history`,
//! docs/observability.md).

use std::time::SystemTime;
use tranche_config::BenchStep;

/// The commit the program is built from (`build.rs`; "unknown" outside
/// a git checkout).
pub const COMMIT: &str = env!("TRANCHE_COMMIT");

pub use tranche_results::meta::*;

/// The metadata of this `tranche run` invocation.
pub fn collect(database: &str, seed: u64, steps: &[BenchStep]) -> Meta {
    of(kind::RUN, database, seed, config_fields(steps))
}

/// The metadata of this invocation, a result of `kind` whose
/// normalised configuration is `config` (one `key: value` a line; the
/// hash is taken of them).
pub fn of(kind: &str, database: &str, seed: u64, config: Vec<String>) -> Meta {
    Meta {
        tool: super::TOOL.into(),
        kind: kind.into(),
        version: super::FORMAT_VERSION.into(),
        commit: COMMIT.into(),
        command: command_line(std::env::args()),
        date: rfc3339(SystemTime::now()),
        machine: machine(),
        database: database.into(),
        profile: if cfg!(debug_assertions) {
            "debug"
        } else {
            "release"
        }
        .into(),
        seed,
        config_hash: lines_hash(&config),
        config,
        restart_at_block: None,
    }
}

/// The arguments joined by spaces, each quoted where a shell would split it.
fn command_line(args: impl Iterator<Item = String>) -> String {
    args.map(|a| {
        if !a.is_empty()
            && a.chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c))
        {
            a
        } else {
            format!("'{}'", a.replace('\'', r"'\''"))
        }
    })
    .collect::<Vec<_>>()
    .join(" ")
}

/// 16 hex digits of BLAKE2b over the steps' normalised configuration as
/// [`config_fields`] lists it (one `step N key: value` line per key, the
/// session's parameters under their own keys, names left out): it changes
/// when a value does, not when the Rust type is rearranged.
pub fn config_hash(steps: &[BenchStep]) -> String {
    lines_hash(&config_fields(steps))
}

/// 16 hex digits of BLAKE2b over `lines`, each ended by a newline.
pub fn lines_hash(lines: &[String]) -> String {
    let mut st = blake2b_simd::Params::new().hash_length(8).to_state();
    for line in lines {
        st.update(line.as_bytes());
        st.update(b"\n");
    }
    hex::encode(st.finalize().as_bytes())
}

/// The configuration of a sweep from those of its grid points (each a
/// list of `key: value` lines): a key every point gives the same value
/// keeps its line, a swept one lists its values in grid order,
/// `key: [v1, v2]`.
pub fn sweep_fields(points: &[Vec<String>]) -> Vec<String> {
    let mut keys: Vec<(String, Vec<String>)> = Vec::new();
    for point in points {
        for line in point {
            let (key, value) = line.split_once(": ").unwrap_or((line.as_str(), ""));
            match keys.iter_mut().find(|(k, _)| k == key) {
                Some((_, values)) if !values.iter().any(|v| v == value) => {
                    values.push(value.to_owned())
                }
                Some(_) => {}
                None => keys.push((key.to_owned(), vec![value.to_owned()])),
            }
        }
    }
    keys.into_iter()
        .map(|(k, v)| match v.as_slice() {
            [one] => format!("{k}: {one}"),
            many => format!("{k}: [{}]", many.join(", ")),
        })
        .collect()
}

/// A network simulation's normalised configuration: one `key: value`
/// line per key of the spec (the value as compact JSON), in the spec's
/// order, for [`Meta::of`].
pub fn spec_fields(spec: &tranche_config::approval_network::NetworkSpec) -> Vec<String> {
    let value = serde_json::to_value(spec).unwrap_or_default();
    let Some(map) = value.as_object() else {
        return Vec::new();
    };
    map.iter().map(|(k, v)| format!("{k}: {v}")).collect()
}

/// A `step N session: SessionParams { k: v ... }` line as one line per
/// parameter, as the file spells them; any other line as it is.
fn expand_session(line: String) -> Vec<String> {
    let Some((head, rest)) = line.split_once(" session: SessionParams {") else {
        return vec![line];
    };
    let tokens: Vec<&str> = rest.split_whitespace().filter(|t| *t != "}").collect();
    tokens
        .chunks(2)
        .map(|kv| format!("{head} {} {}", kv[0], kv.get(1).unwrap_or(&"")))
        .collect()
}

/// Each step's normalised configuration (names excluded, as in the
/// hash), one top-level field a line: `step 1 n_validators: 60`; a nested
/// value on one line.
pub fn config_fields(steps: &[BenchStep]) -> Vec<String> {
    let mut out = Vec::new();
    for step in steps {
        let mut s = step.clone();
        s.name.clear();
        let pretty = format!("{s:#?}");
        let mut field: Option<String> = None;
        for line in pretty.lines().skip(1) {
            let top = line.strip_prefix("    ").filter(|l| {
                !l.starts_with(' ')
                    && l.split_once(": ").is_some_and(|(k, _)| {
                        k.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
                    })
            });
            match (top, field.as_mut()) {
                (Some(l), _) => {
                    out.extend(field.take().map(expand_session).into_iter().flatten());
                    field = Some(format!("step {} {}", step.step, l.trim_end_matches(',')));
                }
                (None, Some(f)) if line != "}" => {
                    f.push(' ');
                    f.push_str(line.trim().trim_end_matches(','));
                }
                _ => {}
            }
        }
        out.extend(field.map(expand_session).into_iter().flatten());
    }
    out
}

/// Which configuration field two reports differ in, from their
/// `Meta::config` lines: the first that differs, as a phrase.
pub fn config_difference(baseline: &[String], current: &[String]) -> String {
    if baseline.is_empty() || current.is_empty() {
        return "the baseline or the current file does not record its fields (written before \
                they were recorded)"
            .into();
    }
    let key = |l: &str| {
        l.split_once(": ")
            .map_or(l.to_owned(), |(k, _)| k.to_owned())
    };
    let value = |l: &str| {
        l.split_once(": ")
            .map_or(String::new(), |(_, v)| v.to_owned())
    };
    for b in baseline {
        match current.iter().find(|c| key(c) == key(b)) {
            Some(c) if c != b => {
                let v = |l: &str| tranche_cli::text::bare(&value(l));
                return format!(
                    "{}: baseline {}, current {}",
                    tranche_cli::text::bare(&key(b)),
                    v(b),
                    v(c)
                );
            }
            None => {
                return format!(
                    "{} is only in the baseline",
                    tranche_cli::text::bare(&key(b))
                )
            }
            _ => {}
        }
    }
    match current
        .iter()
        .find(|c| !baseline.iter().any(|b| key(b) == key(c)))
    {
        Some(c) => format!(
            "{} is only in the current file",
            tranche_cli::text::bare(&key(c))
        ),
        None => "no recorded field differs (the files were made by builds that hash \
                 differently)"
            .into(),
    }
}

fn machine() -> Machine {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    Machine {
        nproc: std::thread::available_parallelism().map_or(1, |n| n.get()),
        cpu_model: cpuinfo
            .lines()
            .find(|l| l.starts_with("model name"))
            .and_then(|l| l.split_once(':'))
            .map(|(_, v)| v.trim().to_owned())
            .unwrap_or_default(),
        memory_bytes: meminfo
            .lines()
            .find(|l| l.starts_with("MemTotal:"))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|kb| kb.parse::<u64>().ok())
            .map_or(0, |kb| kb * 1024),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, UNIX_EPOCH};

    #[test]
    fn a_sweeps_configuration_lists_what_it_sweeps() {
        let points = [
            vec!["n: 1".to_owned(), "cores: 4".to_owned()],
            vec!["n: 2".to_owned(), "cores: 4".to_owned()],
        ];
        assert_eq!(sweep_fields(&points), vec!["n: [1, 2]", "cores: 4"]);
    }

    #[test]
    fn dates_are_rfc3339_utc() {
        assert_eq!(rfc3339(UNIX_EPOCH), "1970-01-01T00:00:00Z");
        let t = UNIX_EPOCH + Duration::from_secs(1_796_119_159);
        assert_eq!(rfc3339(t), "2026-12-01T09:59:19Z");
        let leap = UNIX_EPOCH + Duration::from_secs(951_782_400);
        assert_eq!(rfc3339(leap), "2000-02-29T00:00:00Z");
    }

    #[test]
    fn command_lines_quote_what_a_shell_would_split() {
        let args = ["tranche", "run", "a b.yaml", "--seed", "1", "it's"].map(String::from);
        assert_eq!(
            command_line(args.into_iter()),
            r"tranche run 'a b.yaml' --seed 1 'it'\''s'"
        );
    }

    #[test]
    fn the_config_hash_ignores_names_and_sees_values() {
        let cfg = tranche_config::embedded_default().unwrap();
        let mut other = cfg.steps.clone();
        other[0].name = "elsewhere.yaml #1 ApprovalVoting".into();
        assert_eq!(config_hash(&cfg.steps), config_hash(&other));
        other[0].num_blocks += 1;
        assert_ne!(config_hash(&cfg.steps), config_hash(&other));
        assert_eq!(config_hash(&cfg.steps).len(), 16);
    }

    #[test]
    fn the_config_fields_say_which_field_differs() {
        let cfg = tranche_config::embedded_default().unwrap();
        let a = config_fields(&cfg.steps);
        assert!(a.contains(&"step 1 n_validators: 100".to_owned()), "{a:#?}");
        assert!(a.iter().all(|l| l.starts_with("step 1 ")), "{a:#?}");
        let mut other = cfg.steps.clone();
        other[0].num_blocks = 12;
        let b = config_fields(&other);
        assert_eq!(
            config_difference(&a, &b),
            "step 1 num_blocks: baseline 3, current 12"
        );
        assert!(config_difference(&[], &b).contains("does not record"));
    }

    #[test]
    fn the_session_parameters_are_fields_under_their_own_keys() {
        let cfg = tranche_config::embedded_default().unwrap();
        let a = config_fields(&cfg.steps);
        for line in [
            "step 1 needed_approvals: 30",
            "step 1 zeroth_delay_tranche_width: 0",
            "step 1 relay_vrf_modulo_samples: 6",
            "step 1 n_delay_tranches: 89",
            "step 1 no_show_slots: 3",
        ] {
            assert!(a.contains(&line.to_owned()), "{line} in {a:#?}");
        }
        assert!(!a.iter().any(|l| l.contains("SessionParams")), "{a:#?}");
        let mut other = cfg.steps.clone();
        other[0].session.no_show_slots = 4;
        assert_eq!(
            config_difference(&a, &config_fields(&other)),
            "step 1 no_show_slots: baseline 3, current 4"
        );
        assert_ne!(config_hash(&cfg.steps), config_hash(&other));
    }
}
