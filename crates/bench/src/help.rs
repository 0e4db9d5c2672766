//! The Examples section of every subcommand's `--help` (clap's
//! `after_help`): two or three real command lines each, at sizes that run
//! in seconds. `crates/bench/tests/bench/help_examples.rs` runs every line
//! as written (no `TRANCHE_SMALL`), in the order given, in one scratch
//! folder holding the repository's `examples/`, `ci/` and `testdata/`, and
//! checks each command's `--help` shows its lines, so they stay true.

/// One example: what it does, and the command line.
#[derive(Debug, Clone, Copy)]
pub struct Example {
    /// One line saying what it does.
    pub about: &'static str,
    /// The command line, starting with `tranche`; no shell syntax.
    pub line: &'static str,
}

const fn ex(about: &'static str, line: &'static str) -> Example {
    Example { about, line }
}

/// `tranche run`.
pub const RUN: &[Example] = &[
    ex(
        "The embedded default, cut small, on the virtual clock",
        "tranche run --clock virtual --validators 40 --cores 8 --blocks 1",
    ),
    ex(
        "A shipped test sequence with the results as JSON (for compare)",
        "tranche run approvals_throughput.yaml --clock virtual --validators 40 --cores 8 --blocks 2 --json base.json",
    ),
    ex(
        "The modelled node (the CPU cost table) instead of the real one",
        "tranche run --node model --validators 100 --cores 20 --blocks 2",
    ),
];

/// `tranche network`.
pub const NETWORK: &[Example] = &[
    ex(
        "The embedded default, cut small",
        "tranche network --validators 40 --cores 8 --blocks 1",
    ),
    ex(
        "A shipped example by its bare name, with the results as JSON",
        "tranche network no-shows.yaml --validators 40 --cores 8 --blocks 2 --json network.json",
    ),
];

/// `tranche calibrate`.
pub const CALIBRATE: &[Example] = &[
    ex("A quick measurement, printed", "tranche calibrate --quick"),
    ex(
        "Written as the table `--costs` reads",
        "tranche calibrate --quick --out costs.yaml",
    ),
];

/// `tranche sweep run`.
pub const SWEEP_RUN: &[Example] = &[
    ex(
        "Two validator counts, each layout",
        "tranche sweep run --validators 40,60 --cores 8 --blocks 1",
    ),
    ex(
        "Both schedules of the parallel layout, as JSON",
        "tranche sweep run --validators 40 --cores 8 --blocks 1 --architecture parallel --schedule fifo,useful-first --json sweep.json",
    ),
];

/// `tranche sweep network`.
pub const SWEEP_NETWORK: &[Example] = &[
    ex(
        "Two validator counts",
        "tranche sweep network --validators 40,60 --cores 8 --blocks 1",
    ),
    ex(
        "With and without no-shows",
        "tranche sweep network --validators 40 --cores 8 --blocks 2 --no-show 0,0.1",
    ),
];

/// `tranche sweep`: one of each.
pub const SWEEP: &[Example] = &[SWEEP_RUN[0], SWEEP_NETWORK[0]];

/// `tranche examples`.
pub const EXAMPLES: &[Example] = &[
    ex("List them", "tranche examples"),
    ex(
        "Write them into a new folder",
        "tranche examples --write my-examples",
    ),
];

/// `tranche completions`.
pub const COMPLETIONS: &[Example] = &[
    ex(
        "Bash's (save it where bash-completion looks)",
        "tranche completions bash",
    ),
    ex("Zsh's", "tranche completions zsh"),
];

/// `tranche conformance`.
pub const CONFORMANCE: &[Example] = &[ex(
    "Recompute a public vector file and check it",
    "tranche conformance --input testdata/vectors/public-basic.json --output ours.json --check",
)];

/// `tranche compare`.
pub const COMPARE: &[Example] = &[
    ex(
        "A result against itself (the first `tranche run` example writes base.json)",
        "tranche compare base.json base.json",
    ),
    ex(
        "Deterministic figures only, CPU not judged",
        "tranche compare base.json base.json --ignore-cpu",
    ),
];

/// `tranche history`.
pub const HISTORY: &[Example] = &[
    ex(
        "Results of several kinds, one series each",
        "tranche history base.json network.json sweep.json",
    ),
    ex(
        "With the plots as one page",
        "tranche history base.json network.json --html history.html",
    ),
];

/// `tranche scenario`.
pub const SCENARIO: &[Example] = &[
    ex(
        "One scenario's timeline",
        "tranche scenario testdata/scenarios/01_tranche0_enough.json",
    ),
    ex(
        "Every scenario of a folder against its expected answer",
        "tranche scenario testdata/scenarios",
    ),
];

/// Every command's examples, in the order the test runs them (a later
/// example may read what an earlier one wrote), with the command's words.
pub const ALL: &[(&[&str], &[Example])] = &[
    (&["run"], RUN),
    (&["network"], NETWORK),
    (&["calibrate"], CALIBRATE),
    (&["sweep", "run"], SWEEP_RUN),
    (&["sweep", "network"], SWEEP_NETWORK),
    (&["sweep"], SWEEP),
    (&["examples"], EXAMPLES),
    (&["completions"], COMPLETIONS),
    (&["conformance"], CONFORMANCE),
    (&["compare"], COMPARE),
    (&["history"], HISTORY),
    (&["scenario"], SCENARIO),
];

/// The `Examples:` section of a `--help`.
pub fn section(examples: &[Example]) -> String {
    let mut out = String::from("Examples:\n");
    for e in examples {
        out.push_str(&format!("  # {}\n  {}\n", e.about, e.line));
    }
    out
}
