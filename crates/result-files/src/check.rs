//! What a result must satisfy to be compared, followed or drawn, checked
//! once it is read (`compare`, `history`, `network --beside`: every reader
//! of results goes through `results::read`): times and CPU finite and
//! within [`MAX_CPU_S`] (seconds) or [`MAX_MS`] (milliseconds), ratios and
//! sizes not negative and below [`MAX_RATIO`], a `meta.date` that is a date
//! (RFC 3339) no later than a day after this machine's clock, and records
//! that agree with themselves and with the configuration they claim (a
//! network report holds one record per validator it names, each of as many
//! blocks as the report, its blocks numbered 1, 2, ... in order, each
//! block's min ≤ p50 ≤ p99 ≤ max and no more validators finalizing than
//! the run has; a run's blocks are numbered within its `num_blocks`, each
//! once, in order; a sweep's p50 ≤ p99 ≤ max). Counts are read as unsigned
//! integers, so a negative count is refused as a value of the wrong kind
//! before this. The first thing wrong is the reason, one line, naming the
//! field.

use super::{NetworkResult, ResultFile};
use tranche_cli::text::{bare, counted};
use tranche_results::{ReportFile, RunReport};

/// Most CPU or wall seconds a figure may hold: 10 million (about 116
/// days).
pub const MAX_CPU_S: f64 = 1e7;
/// Most milliseconds an approval time may hold: 10 000 million (116
/// days).
pub const MAX_MS: u64 = 10_000_000_000;
/// Most a ratio, a fraction or a size in KiB/MiB may be.
pub const MAX_RATIO: f64 = 1e12;

/// `value`, named `what`, as a figure within `0..=max`.
fn within(what: &str, value: f64, max: f64) -> Result<(), String> {
    if value.is_finite() && (0.0..=max).contains(&value) {
        Ok(())
    } else {
        Err(format!(
            "{what} is {}, not within 0..{max:e}",
            number(value)
        ))
    }
}

/// `v` as an error line shows it: `1e308`, never 309 digits.
fn number(v: f64) -> String {
    if v.is_finite() && v.abs() < 1e9 {
        format!("{v}")
    } else {
        format!("{v:e}")
    }
}

fn ms(what: &str, value: Option<u64>) -> Result<(), String> {
    match value {
        Some(v) if v > MAX_MS => Err(format!("{what} is {v} ms, more than {MAX_MS}")),
        _ => Ok(()),
    }
}

/// Seconds since 1970 of an RFC 3339 date (`2026-12-01T09:59:19Z`, with
/// fractions of a second or an offset `+02:00`), if `date` is one.
pub fn date_seconds(date: &str) -> Option<i64> {
    let b = date.as_bytes();
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        let s = date.get(r)?;
        s.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| s.parse().ok())?
    };
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b't' | b' ') {
        return None;
    }
    if b[13] != b':' || b[16] != b':' {
        return None;
    }
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (h, mi, s) = (num(11..13)?, num(14..16)?, num(17..19)?);
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days_in = [
        31,
        if leap { 29 } else { 28 },
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ];
    if !(1..=12).contains(&mo) || d < 1 || d > days_in[mo as usize - 1] || h > 23 || mi > 59 {
        return None;
    }
    if s > 60 {
        return None;
    }
    let mut rest = &date[19..];
    if let Some(frac) = rest.strip_prefix('.') {
        let digits = frac.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return None;
        }
        rest = &frac[digits..];
    }
    let offset = match rest {
        "Z" | "z" => 0,
        _ => {
            let sign = match rest.as_bytes().first() {
                Some(b'+') => 1,
                Some(b'-') => -1,
                _ => return None,
            };
            let o = rest.as_bytes();
            if o.len() != 6 || o[3] != b':' {
                return None;
            }
            let oh: i64 = rest[1..3].parse().ok()?;
            let om: i64 = rest[4..6].parse().ok()?;
            if oh > 23 || om > 59 {
                return None;
            }
            sign * (oh * 3600 + om * 60)
        }
    };
    // Days from the civil date (Howard Hinnant's algorithm).
    let (yy, mm) = if mo <= 2 {
        (y - 1, mo + 9)
    } else {
        (y, mo - 3)
    };
    let era = yy.div_euclid(400);
    let yoe = yy - era * 400;
    let doy = (153 * mm + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(days * 86_400 + h * 3600 + mi * 60 + s - offset)
}

/// How far past this machine's clock a `meta.date` may be (clocks of
/// two machines differ): a day.
pub const DATE_SLACK_S: i64 = 86_400;

/// The date, if the result has one: it must be a date, and not later than
/// a day after `now` (seconds since 1970).
fn date(r: &ResultFile, now: i64) -> Result<(), String> {
    let Some(m) = r.meta().filter(|m| !m.date.is_empty()) else {
        return Ok(());
    };
    match date_seconds(&m.date) {
        None => Err(format!(
            "meta.date {} is not a date (RFC 3339, as the tool writes: 2026-12-01T09:59:19Z)",
            tranche_cli::text::quote(&m.date)
        )),
        Some(t) if t > now.saturating_add(DATE_SLACK_S) => Err(format!(
            "meta.date {} is in the future: this machine's clock says {}",
            tranche_cli::text::quote(&m.date),
            tranche_results::meta::rfc3339(
                std::time::UNIX_EPOCH + std::time::Duration::from_secs(now.max(0) as u64)
            )
        )),
        Some(_) => Ok(()),
    }
}

/// `what`'s approval times in order: min ≤ p50 ≤ p99 ≤ max, where given.
fn ordered(what: &str, times: [(&str, Option<u64>); 4]) -> Result<(), String> {
    let given: Vec<(&str, u64)> = times
        .iter()
        .filter_map(|(name, v)| v.map(|v| (*name, v)))
        .collect();
    for pair in given.windows(2) {
        let ((a, x), (b, y)) = (pair[0], pair[1]);
        if x > y {
            return Err(format!("{what} {a} is {x}, more than its {b} {y}"));
        }
    }
    Ok(())
}

fn run(r: &RunReport) -> Result<(), String> {
    let of = |what: &str| format!("run {}: {what}", bare(&r.name));
    within(&of("node_cpu_s"), r.node_cpu_s, MAX_CPU_S)?;
    within(&of("wall_time_s"), r.wall_time_s, MAX_CPU_S)?;
    for c in &r.cpu {
        within(
            &of(&format!("cpu {} total_s", bare(&c.name))),
            c.total_s,
            MAX_CPU_S,
        )?;
        within(
            &of(&format!("cpu {} per_block_s", bare(&c.name))),
            c.per_block_s,
            MAX_CPU_S,
        )?;
    }
    let f = &r.crypto_floor;
    for (what, v) in [
        ("crypto_floor.cpu_s", f.cpu_s),
        ("crypto_floor.per_block_s", f.per_block_s),
        ("crypto_floor.batched_cpu_s", f.batched_cpu_s),
        ("crypto_floor.batched_per_block_s", f.batched_per_block_s),
        ("crypto_floor.interval_s", f.interval_s.0),
        ("crypto_floor.interval_s", f.interval_s.1),
        ("generation.time_s", r.generation.time_s),
        ("generation.cpu_s", r.generation.cpu_s),
        ("database.cpu_s", r.database.cpu_s),
    ] {
        within(&of(what), v, MAX_CPU_S)?;
    }
    for (what, v) in [
        ("crypto_floor.node_ratio", f.node_ratio),
        ("crypto_floor.node_ratio_batched", f.node_ratio_batched),
        (
            "network.received_kib_per_block",
            r.network.received_kib_per_block,
        ),
        ("network.sent_kib_per_block", r.network.sent_kib_per_block),
    ] {
        within(&of(what), v, MAX_RATIO)?;
    }
    if r.blocks.len() > r.num_blocks as usize {
        return Err(of(&format!(
            "it holds the times of {}, its num_blocks is {}",
            counted(r.blocks.len(), "block"),
            r.num_blocks
        )));
    }
    let mut last = 0;
    for b in &r.blocks {
        if b.number == 0 || b.number > r.num_blocks {
            return Err(of(&format!(
                "block {} is not within 1..{} (num_blocks)",
                b.number, r.num_blocks
            )));
        }
        if b.number <= last {
            return Err(of(&format!(
                "block {} comes after block {last}: blocks are numbered once each, in order",
                b.number
            )));
        }
        last = b.number;
        ms(
            &of(&format!("block {} approved_after_ms", b.number)),
            b.approved_after_ms,
        )?;
    }
    if let Some(reps) = &r.repeats {
        let v = serde_json::to_value(reps).unwrap_or_default();
        numbers_within(&of("repeats"), &v)?;
    }
    Ok(())
}

/// Every number of `v` within `0..MAX_CPU_S` (a `--repeat` spread).
fn numbers_within(what: &str, v: &serde_json::Value) -> Result<(), String> {
    match v {
        serde_json::Value::Number(n) => within(what, n.as_f64().unwrap_or(-1.0), MAX_CPU_S),
        serde_json::Value::Array(a) => a.iter().try_for_each(|x| numbers_within(what, x)),
        serde_json::Value::Object(m) => m.values().try_for_each(|x| numbers_within(what, x)),
        _ => Ok(()),
    }
}

fn runs(f: &ReportFile) -> Result<(), String> {
    f.runs.iter().try_for_each(run)
}

fn network(n: &NetworkResult) -> Result<(), String> {
    let r = &n.report;
    if n.records.len() != r.n_validators as usize {
        return Err(format!(
            "it holds the records of {}, its n_validators is {}",
            counted(n.records.len(), "validator"),
            r.n_validators
        ));
    }
    if let Some(bad) = n.records.iter().find(|d| d.blocks != r.blocks.len()) {
        return Err(format!(
            "validator {}'s record holds {}, the report {}",
            bad.validator,
            counted(bad.blocks, "block"),
            r.blocks.len()
        ));
    }
    for (i, b) in r.blocks.iter().enumerate() {
        if b.number as usize != i + 1 {
            return Err(format!(
                "blocks[{i}].number is {}, not {}: a report of {} numbers them 1 to {} in order",
                b.number,
                i + 1,
                counted(r.blocks.len(), "block"),
                r.blocks.len()
            ));
        }
        if b.approved > b.expected || b.expected > r.n_validators {
            return Err(format!(
                "block {}: approved by {} of {} expected, of {} validators",
                b.number, b.approved, b.expected, r.n_validators
            ));
        }
        if let Some(f) = b.finalized.filter(|f| *f > r.n_validators) {
            return Err(format!(
                "block {}: finalized by {f}, of {} validators",
                b.number, r.n_validators
            ));
        }
        let times = [
            ("min_ms", b.min_ms),
            ("p50_ms", b.p50_ms),
            ("p99_ms", b.p99_ms),
            ("max_ms", b.max_ms),
        ];
        for (what, v) in times {
            ms(&format!("block {} {what}", b.number), v)?;
        }
        ordered(&format!("block {}", b.number), times)?;
    }
    let c = &r.cost;
    for (what, v) in [
        ("cost.wall_s", c.wall_s),
        ("cost.cpu_s", c.cpu_s),
        ("cost.total.wall_s", c.total.wall_s),
        ("cost.total.cpu_s", c.total.cpu_s),
    ] {
        within(what, v, MAX_CPU_S)?;
    }
    Ok(())
}

fn sweep_rows<R>(
    rows: &[R],
    figures: impl Fn(&R) -> Vec<(&'static str, f64, f64)>,
) -> Result<(), String> {
    for (i, row) in rows.iter().enumerate() {
        for (what, v, max) in figures(row) {
            within(&format!("row {} {what}", i + 1), v, max)?;
        }
    }
    Ok(())
}

/// Why `r` is not a result to judge, if it is not (its date judged
/// against this machine's clock).
pub(super) fn check(r: &ResultFile) -> Result<(), String> {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    check_at(r, now)
}

/// [`check`], `now` the seconds since 1970.
fn check_at(r: &ResultFile, now: i64) -> Result<(), String> {
    date(r, now)?;
    match r {
        ResultFile::Run(f) => runs(f),
        ResultFile::Network(n) => network(n),
        ResultFile::SweepRun(s) => sweep_rows(&s.rows, |r| {
            vec![
                ("node_cpu_per_block_s", r.node_cpu_per_block_s, MAX_CPU_S),
                ("floor_per_block_s", r.floor_per_block_s, MAX_CPU_S),
                ("node_ratio", r.node_ratio, MAX_RATIO),
                ("wall_s", r.wall_s, MAX_CPU_S),
                ("peak_memory_mib", r.peak_memory_mib, MAX_RATIO),
            ]
        }),
        ResultFile::SweepNetwork(s) => {
            for (i, row) in s.rows.iter().enumerate() {
                let times = [
                    ("p50_ms", row.p50_ms),
                    ("p99_ms", row.p99_ms),
                    ("max_ms", row.max_ms),
                    ("", None),
                ];
                ordered(&format!("row {}", i + 1), times)?;
            }
            sweep_rows(&s.rows, |r| {
                vec![
                    ("no_show_fraction", r.no_show_fraction, 1.0),
                    ("slow_fraction", r.slow_fraction, 1.0),
                    ("assignments_per_block", r.assignments_per_block, MAX_RATIO),
                    ("wall_s", r.wall_s, MAX_CPU_S),
                    ("cpu_s", r.cpu_s, MAX_CPU_S),
                ]
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_read_as_rfc3339_and_nothing_else() {
        assert_eq!(date_seconds("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(date_seconds("2026-12-01T09:59:19Z"), Some(1_796_119_159));
        assert_eq!(
            date_seconds("2026-12-01T11:59:19.5+02:00"),
            Some(1_796_119_159)
        );
        assert_eq!(date_seconds("2000-02-29T00:00:00Z"), Some(951_782_400));
        for bad in [
            "yesterday",
            "",
            "2026-13-01T00:00:00Z",
            "2026-02-30T00:00:00Z",
            "2026-12-01",
        ] {
            assert_eq!(date_seconds(bad), None, "{bad}");
        }
    }

    #[test]
    fn impossible_figures_are_refused_with_their_name() {
        let mut r = tranche_results::fixture::run();
        r.node_cpu_s = -5.0;
        let e = run(&r).unwrap_err();
        assert!(e.contains("node_cpu_s is -5"), "{e}");
        r.node_cpu_s = 1e308;
        assert!(run(&r).unwrap_err().contains("node_cpu_s"));
        let mut r = tranche_results::fixture::run();
        r.blocks[1].number = 9;
        assert!(run(&r).unwrap_err().contains("block 9"));
        assert_eq!(run(&tranche_results::fixture::run()), Ok(()));
    }
}
