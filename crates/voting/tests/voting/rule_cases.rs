//! Runs the approval-rule cases of `crates/voting/testdata/*.txt` (format:
//! `crates/voting/testdata/README.md`). Every `.txt` in that folder is read;
//! a parse error or a failed expectation is reported as `file:line`, all of
//! them at once.

use crate::common;

use common::*;
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use tranche_primitives::{Candidate, Session, Tick, ValidatorIndex};
use tranche_voting::{Action, ApprovalVoting, Config, MemoryStore};

/// A block declared by a `block` line.
struct BlockDecl {
    number: u32,
    parent: String,
    slot: u64,
    candidates: u32,
    shares: Option<String>,
}

/// What an `expect` line checks once the case has run.
enum Final {
    Candidate {
        block: String,
        index: u32,
        /// `None`: never approved.
        want: Option<Approval>,
    },
    Block {
        block: String,
        at: Option<Tick>,
    },
    NoShows {
        block: String,
        index: u32,
        seen: Vec<(Tick, Vec<u32>)>,
    },
}

/// How a candidate is expected to be approved.
#[derive(Clone, Copy)]
struct Approval {
    at: Tick,
    /// Covered no-shows, when given.
    tolerated: Option<usize>,
    one_third: bool,
}

/// One case being run.
struct Case {
    file: String,
    name: String,
    session: SessionSpec,
    session_built: Option<Arc<Session>>,
    blocks: HashMap<String, BlockDecl>,
    driver: Driver<MemoryStore>,
    /// Results of the last input line, as `Debug` text.
    last_results: Option<(usize, Vec<String>)>,
    finals: Vec<(usize, Final)>,
    errors: Vec<String>,
}

type Parsed<T> = Result<T, String>;

fn num<T: std::str::FromStr>(s: Option<&str>, what: &str) -> Parsed<T> {
    let s = s.ok_or_else(|| format!("missing {what}"))?;
    s.parse()
        .map_err(|_| format!("{what}: `{s}` is not a number"))
}

fn word<'a>(w: Option<&'a str>, what: &str) -> Parsed<&'a str> {
    w.ok_or_else(|| format!("missing {what}"))
}

fn keyword(w: Option<&str>, expected: &str) -> Parsed<()> {
    match w {
        Some(x) if x == expected => Ok(()),
        other => Err(format!("expected `{expected}`, found {other:?}")),
    }
}

/// `v5` → 5.
fn validator(w: &str) -> Parsed<u32> {
    w.strip_prefix('v')
        .and_then(|n| n.parse().ok())
        .ok_or_else(|| format!("`{w}` is not a validator (like v5)"))
}

/// `A[0,1]` → ("A", [0, 1]).
fn candidates(w: &str) -> Parsed<(String, Vec<u32>)> {
    let bad = || format!("`{w}` is not block[indices] (like A[0] or A[0,1])");
    let (b, rest) = w.split_once('[').ok_or_else(bad)?;
    let list = rest.strip_suffix(']').ok_or_else(bad)?;
    let idx = list
        .split(',')
        .map(|i| i.trim().parse().map_err(|_| bad()))
        .collect::<Parsed<Vec<u32>>>()?;
    Ok((b.to_string(), idx))
}

/// `A#0` → ("A", Some(0)); `A` → ("A", None).
fn subject(w: &str) -> Parsed<(String, Option<u32>)> {
    match w.split_once('#') {
        Some((b, i)) => Ok((b.to_string(), Some(num(Some(i), "candidate index")?))),
        None => Ok((w.to_string(), None)),
    }
}

/// `Some(144)` style fields of a `Debug` text: `Pending { considered: 1, .. }`.
fn debug_fields(debug: &str) -> (String, HashMap<String, String>) {
    let (variant, rest) = debug.split_once(" {").unwrap_or((debug, ""));
    let fields = rest
        .trim_end_matches('}')
        .split(", ")
        .filter_map(|f| f.trim().split_once(": "))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    (variant.to_string(), fields)
}

impl Case {
    fn new(file: &str, name: &str) -> Self {
        Case {
            file: file.to_string(),
            name: name.to_string(),
            session: SessionSpec::default(),
            session_built: None,
            blocks: HashMap::new(),
            driver: Driver::new(
                ApprovalVoting::new(Config::default(), None),
                MemoryStore::new(),
            ),
            last_results: None,
            finals: Vec::new(),
            errors: Vec::new(),
        }
    }

    fn fail(&mut self, line: usize, msg: String) {
        self.errors
            .push(format!("{}:{line}: case {}: {msg}", self.file, self.name));
    }

    fn session(&mut self, words: &mut std::str::SplitWhitespace) -> Parsed<()> {
        if self.session_built.is_some() {
            return Err("`session` must come before the first import".into());
        }
        while let Some(k) = words.next() {
            let v = num(words.next(), k)?;
            let s = &mut self.session;
            match k {
                "validators" => s.n_validators = v,
                "cores" => s.n_cores = v,
                "needed" => s.needed = v,
                "no-show-slots" => s.no_show_slots = v,
                "coalesce" => s.coalesce = v,
                "delay-tranches" => s.n_delay_tranches = v,
                _ => return Err(format!("unknown session parameter `{k}`")),
            }
        }
        Ok(())
    }

    fn block(&mut self, words: &mut std::str::SplitWhitespace) -> Parsed<()> {
        let name = word(words.next(), "block name")?.to_string();
        keyword(words.next(), "number")?;
        let number = num(words.next(), "number")?;
        keyword(words.next(), "parent")?;
        let parent = word(words.next(), "parent")?.to_string();
        keyword(words.next(), "slot")?;
        let slot = num(words.next(), "slot")?;
        keyword(words.next(), "candidates")?;
        let candidates = num(words.next(), "candidates")?;
        let shares = match words.next() {
            None => None,
            Some("shares") => Some(word(words.next(), "shared block")?.to_string()),
            Some(w) => return Err(format!("unexpected `{w}`")),
        };
        let decl = BlockDecl {
            number,
            parent,
            slot,
            candidates,
            shares,
        };
        self.blocks.insert(name, decl);
        Ok(())
    }

    /// An `at T ...` line: advance the clock, then run the input if any.
    fn at(&mut self, words: &mut std::str::SplitWhitespace, line: usize) -> Parsed<()> {
        let t: Tick = num(words.next(), "tick")?;
        if t < self.driver.now {
            return Err(format!("time goes backwards: {t} < {}", self.driver.now));
        }
        self.driver.at(t);
        let Some(input) = words.next() else {
            return Ok(());
        };
        let results = match input {
            "import" => {
                let name = word(words.next(), "block name")?;
                let b = self.new_block(name)?;
                self.driver.block(b);
                Vec::new()
            }
            "finalize" => {
                let name = word(words.next(), "block name")?;
                let number = self.decl(name)?.number;
                self.driver.finalize(name, number);
                Vec::new()
            }
            "assign" | "approve" => self.votes(input, words)?,
            other => return Err(format!("unknown input `{other}`")),
        };
        self.last_results = Some((line, results));
        Ok(())
    }

    fn decl(&self, name: &str) -> Parsed<&BlockDecl> {
        self.blocks
            .get(name)
            .ok_or_else(|| format!("block `{name}` is not declared"))
    }

    fn new_block(&mut self, name: &str) -> Parsed<tranche_voting::NewBlock> {
        let spec = std::mem::take(&mut self.session);
        let s = self
            .session_built
            .get_or_insert_with(|| session(spec))
            .clone();
        let d = self.decl(name)?;
        let mut b = block(name, d.number, &d.parent, d.slot, &s, d.candidates);
        if let Some(other) = &d.shares {
            let shared = b
                .block
                .candidates
                .iter()
                .enumerate()
                .map(|(i, c)| Candidate {
                    hash: cand(other, i as u32),
                    ..*c
                });
            b.block.candidates = shared.collect();
        }
        Ok(b)
    }

    /// `assign v5 v6 A[0] tranche 0` or `approve v5 A[0,1]`: one import per
    /// validator, in order.
    fn votes(&mut self, input: &str, words: &mut std::str::SplitWhitespace) -> Parsed<Vec<String>> {
        let mut vs = Vec::new();
        let target = loop {
            let w = word(words.next(), "block[indices]")?;
            if w.starts_with('v') && !w.contains('[') {
                vs.push(validator(w)?);
            } else {
                break candidates(w)?;
            }
        };
        if vs.is_empty() {
            return Err("no validator (like v5) before the candidates".into());
        }
        let tranche = if input == "assign" {
            keyword(words.next(), "tranche")?;
            Some(num(words.next(), "tranche")?)
        } else {
            None
        };
        let (b, idx) = target;
        let mut results = Vec::new();
        for v in vs {
            let r = match tranche {
                Some(t) => {
                    let out = self.driver.assign(assignment(&b, v, &idx, t));
                    format!("{:?}", out.assignment_result().expect("a result"))
                }
                None => {
                    let out = self.driver.approve(approval(&b, v, &idx));
                    format!("{:?}", out.approval_result().expect("a result"))
                }
            };
            results.push(r);
        }
        Ok(results)
    }

    /// An `expect ...` line: checked now, or recorded for the end.
    fn expect(&mut self, words: &mut std::str::SplitWhitespace, line: usize) -> Parsed<()> {
        let what = word(words.next(), "what to expect")?;
        let rest: Vec<&str> = words.collect();
        let mismatch = match what {
            "result" => self.expect_result(&rest)?,
            "wakeup" => {
                let want = match rest.as_slice() {
                    ["none"] => None,
                    [t] => Some(num(Some(t), "wakeup tick")?),
                    _ => return Err("expect wakeup TICK|none".into()),
                };
                let got = self.driver.m.next_wakeup();
                (got != want).then(|| format!("next wakeup {want:?}, got {got:?}"))
            }
            "known" | "unknown" => {
                let mut bad = Vec::new();
                for b in &rest {
                    if self.driver.m.has_block(&hash(b)) != (what == "known") {
                        bad.push(*b);
                    }
                }
                (!bad.is_empty()).then(|| format!("blocks {bad:?} are not {what}"))
            }
            "ancestor" => self.expect_ancestor(&rest)?,
            _ => self.expect_subject(what, &rest, line)?,
        };
        if let Some(m) = mismatch {
            self.fail(line, format!("expected {}", m));
        }
        Ok(())
    }

    fn expect_result(&mut self, rest: &[&str]) -> Parsed<Option<String>> {
        // `Bad NoAssignment` matches `Bad(NoAssignment(..))`;
        // `Bad InvalidBitfield(3)` matches `Bad(InvalidBitfield(3))` only.
        let (exact, prefix) = match rest {
            [r] => (r.to_string(), None),
            [r, e] => (format!("{r}({e})"), Some(format!("{r}({e}("))),
            _ => return Err("expect result RESULT [ERROR]".into()),
        };
        let (at, got) = self
            .last_results
            .clone()
            .filter(|(_, r)| !r.is_empty())
            .ok_or("`expect result` must follow an assign or approve line")?;
        let ok = |g: &String| *g == exact || prefix.as_ref().is_some_and(|p| g.starts_with(p));
        let wrong: Vec<_> = got.iter().filter(|g| !ok(g)).collect();
        Ok((!wrong.is_empty())
            .then(|| format!("result {} of line {at}, got {got:?}", rest.join(" "))))
    }

    /// `ancestor of D above 0 is A` (or `is none`).
    fn expect_ancestor(&mut self, rest: &[&str]) -> Parsed<Option<String>> {
        let ["of", target, "above", lower, "is", want] = rest else {
            return Err("expect ancestor of BLOCK above NUMBER is BLOCK|none".into());
        };
        let lower = num(Some(lower), "lower bound")?;
        let got = self.driver.m.approved_ancestor(&hash(target), lower);
        let want = match *want {
            "none" => None,
            b => Some((hash(b), self.decl(b)?.number)),
        };
        Ok((got != want).then(|| {
            let name = |h: Option<(tranche_primitives::Hash, u32)>| {
                h.map(|(h, n)| {
                    let b = self.blocks.keys().find(|b| hash(b) == h);
                    format!("{} (#{n})", b.map_or("?", |b| b.as_str()))
                })
            };
            format!("approved ancestor {:?}, got {:?}", name(want), name(got))
        }))
    }

    /// `A#0 ...` or `A ...`.
    fn expect_subject(&mut self, what: &str, rest: &[&str], line: usize) -> Parsed<Option<String>> {
        let (block, index) = subject(what)?;
        let (verb, args) = rest
            .split_first()
            .ok_or("expect SUBJECT approved|never|unapproved|no-shows|approvals|required")?;
        let now = self.driver.now;
        match (*verb, index) {
            ("approved", _) | ("never", _) => {
                let at = if *verb == "never" {
                    None
                } else {
                    let ["at", t, ..] = args else {
                        return Err("expect SUBJECT approved at TICK".into());
                    };
                    Some(num(Some(t), "tick")?)
                };
                let f = match index {
                    None => Final::Block { block, at },
                    Some(index) => {
                        let (mut tolerated, mut one_third) = (None, false);
                        let mut extra = args.iter().skip(2);
                        while let Some(w) = extra.next() {
                            match *w {
                                "tolerated" => tolerated = Some(num(extra.next().copied(), w)?),
                                "one-third" => one_third = true,
                                _ => return Err(format!("unexpected `{w}`")),
                            }
                        }
                        let want = at.map(|at| Approval {
                            at,
                            tolerated,
                            one_third,
                        });
                        Final::Candidate { block, index, want }
                    }
                };
                self.finals.push((line, f));
                Ok(None)
            }
            ("unapproved", _) => {
                let h = hash(&block);
                let got = match index {
                    None => self.driver.m.is_block_approved(&h),
                    Some(i) => self.driver.m.is_candidate_approved(&h, i),
                };
                Ok((got != Some(false)).then(|| format!("{what} unapproved now, got {got:?}")))
            }
            ("no-shows", Some(index)) => {
                let mut seen = Vec::new();
                let mut vs = Vec::new();
                let mut it = args.iter();
                while let Some(w) = it.next() {
                    match *w {
                        "none" if args.len() == 1 => {}
                        "at" => {
                            seen.push((num(it.next().copied(), "tick")?, std::mem::take(&mut vs)))
                        }
                        v => vs.push(validator(v)?),
                    }
                }
                if !vs.is_empty() {
                    return Err("no-shows: validators without `at TICK`".into());
                }
                self.finals
                    .push((line, Final::NoShows { block, index, seen }));
                Ok(None)
            }
            ("approvals", Some(index)) => {
                let want: usize = num(args.first().copied(), "approvals")?;
                let st = self
                    .driver
                    .m
                    .candidate_status(now, &hash(&block), index)
                    .ok_or_else(|| format!("{what} is unknown"))?;
                Ok((st.approvals != want)
                    .then(|| format!("{what} with {want} approvals, got {}", st.approvals)))
            }
            ("required", Some(index)) => {
                let (variant, fields) = args
                    .split_first()
                    .ok_or("expect A#0 required VARIANT [field=value ...]")?;
                let st = self
                    .driver
                    .m
                    .candidate_status(now, &hash(&block), index)
                    .ok_or_else(|| format!("{what} is unknown"))?;
                let debug = format!("{:?}", st.required);
                let (got_variant, got_fields) = debug_fields(&debug);
                let mut ok = got_variant == *variant;
                for f in fields {
                    let (k, v) = f
                        .split_once('=')
                        .ok_or_else(|| format!("`{f}` is not field=value"))?;
                    ok &= got_fields.get(k).is_some_and(|g| g == v);
                }
                Ok((!ok).then(|| format!("{what} required {}, got {debug}", args.join(" "))))
            }
            _ => Err(format!("cannot expect `{verb}` of `{what}`")),
        }
    }

    /// Check the expectations over everything the case logged.
    fn finish(&mut self) {
        for (line, f) in std::mem::take(&mut self.finals) {
            if let Some(m) = self.check_final(&f) {
                self.fail(line, format!("expected {m}"));
            }
        }
    }

    fn check_final(&self, f: &Final) -> Option<String> {
        let log = &self.driver.log;
        let show = |at: Option<Tick>| at.map_or("never".to_string(), |t| format!("at {t}"));
        match f {
            Final::Block { block, at } => {
                let got = self.driver.block_approved_at(block);
                (got != *at).then(|| format!("{block} approved {}, got {}", show(*at), show(got)))
            }
            Final::Candidate { block, index, want } => {
                let got = log.iter().find_map(|(t, a)| match a {
                    Action::CandidateApproved {
                        block: b,
                        candidate_index,
                        tolerated_no_shows,
                        one_third,
                        ..
                    } if *b == hash(block) && candidate_index == index => Some(Approval {
                        at: *t,
                        tolerated: Some(*tolerated_no_shows),
                        one_third: *one_third,
                    }),
                    _ => None,
                });
                let show = |a: Option<Approval>| match a {
                    None => "never".to_string(),
                    Some(a) => {
                        let tol = a
                            .tolerated
                            .map_or(String::new(), |n| format!(" tolerated {n}"));
                        let third = if a.one_third { " one-third" } else { "" };
                        format!("at {}{tol}{third}", a.at)
                    }
                };
                let matches = match (want, got) {
                    (None, None) => true,
                    (Some(w), Some(g)) => {
                        w.at == g.at
                            && w.one_third == g.one_third
                            && w.tolerated.is_none_or(|n| g.tolerated == Some(n))
                    }
                    _ => false,
                };
                (!matches).then(|| {
                    format!(
                        "{block}#{index} approved {}, got {}",
                        show(*want),
                        show(got)
                    )
                })
            }
            Final::NoShows { block, index, seen } => {
                let got: Vec<(Tick, Vec<u32>)> = log
                    .iter()
                    .filter_map(|(t, a)| match a {
                        Action::NoShowObserved {
                            block: b,
                            candidate_index,
                            validators,
                            ..
                        } if *b == hash(block) && candidate_index == index => Some((
                            *t,
                            validators.iter().map(|v: &ValidatorIndex| v.0).collect(),
                        )),
                        _ => None,
                    })
                    .collect();
                (got != *seen).then(|| format!("{block}#{index} no-shows {seen:?}, got {got:?}"))
            }
        }
    }
}

/// Run the cases of one file's text; the errors, each as `file:line: ...`.
fn run_text(file: &str, text: &str) -> (usize, Vec<String>) {
    let mut errors = Vec::new();
    let mut case: Option<Case> = None;
    let mut n_cases = 0;
    let close = |case: Option<Case>, errors: &mut Vec<String>| {
        if let Some(mut c) = case {
            c.finish();
            errors.extend(c.errors);
        }
    };
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        // A comment starts with `#` at the line's start or after a space
        // (`A#0` names a candidate).
        let content = if raw.trim_start().starts_with('#') {
            ""
        } else {
            raw.find(" #").map_or(raw, |p| &raw[..p])
        };
        let mut words = content.split_whitespace();
        let Some(first) = words.next() else { continue };
        if first == "case" {
            close(case.take(), &mut errors);
            let name = words.next().unwrap_or("?");
            case = Some(Case::new(file, name));
            n_cases += 1;
            continue;
        }
        let Some(c) = case.as_mut() else {
            errors.push(format!(
                "{file}:{line}: `{first}` before the first `case` line"
            ));
            continue;
        };
        let r = match first {
            "session" => c.session(&mut words),
            "block" => c.block(&mut words),
            "at" => c.at(&mut words, line),
            "expect" => c.expect(&mut words, line),
            other => Err(format!("unknown line kind `{other}`")),
        };
        if let Err(e) = r {
            c.fail(line, e);
        }
    }
    close(case, &mut errors);
    if n_cases == 0 {
        errors.push(format!("{file}: no `case` line"));
    }
    (n_cases, errors)
}

#[test]
fn every_rule_case_in_testdata_holds() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no .txt case files in {}", dir.display());
    let (mut cases, mut errors) = (0, Vec::new());
    for p in &files {
        let text = std::fs::read_to_string(p).unwrap();
        let shown = format!(
            "crates/voting/testdata/{}",
            p.file_name().unwrap().to_string_lossy()
        );
        let (n, e) = run_text(&shown, &text);
        cases += n;
        errors.extend(e);
    }
    assert!(
        errors.is_empty(),
        "{} of the rule cases failed:\n{}",
        errors.len(),
        errors.join("\n")
    );
    eprintln!("{cases} rule cases in {} files hold", files.len());
}

/// One case whose expectations (lines 5, 7, 8 and 9) and last line (10)
/// are given.
fn selftest_case(
    result: &str,
    approved_at: Tick,
    approvals: usize,
    wakeup: Tick,
    last: &str,
) -> String {
    format!(
        "case selftest
block A number 1 parent genesis slot 10 candidates 1
at 120 import A
at 120 assign v5 v6 v7 A[0] tranche 0
expect result {result}
at 124 approve v5 v6 v7 A[0]
expect A#0 approved at {approved_at}
expect A#0 approvals {approvals}
expect wakeup {wakeup}
{last}
"
    )
}

/// The runner catches a wrong expectation and a malformed line, and names
/// the file and line of each.
#[test]
fn runner_reports_a_wrong_expectation_with_its_file_and_line() {
    let wrong = selftest_case("AcceptedDuplicate", 125, 2, 7, "at 130 frobnicate A");
    let (n, errors) = run_text("selftest.txt", &wrong);
    assert_eq!(n, 1);
    let at = |line: usize| {
        errors
            .iter()
            .any(|e| e.starts_with(&format!("selftest.txt:{line}: ")))
    };
    assert!(at(5), "wrong result not caught: {errors:?}");
    assert!(at(7), "wrong approval tick not caught: {errors:?}");
    assert!(at(8), "wrong approval count not caught: {errors:?}");
    assert!(at(9), "wrong wakeup not caught: {errors:?}");
    assert!(at(10), "unknown input not reported: {errors:?}");
    assert_eq!(errors.len(), 5, "{errors:?}");
    // The same case with right expectations passes.
    let right = selftest_case(
        "Accepted",
        124,
        3,
        144,
        "expect A approved at 124 # a comment",
    );
    assert_eq!(run_text("selftest.txt", &right), (1, Vec::new()));
}
