//! The terminal table of one step's runs: with `--architecture both` the
//! two layouts side by side with ratios.

use super::{Counts, RunReport};
use std::fmt::Write as _;

const W: usize = 44;

fn ms(v: Option<u64>) -> String {
    v.map(|m| format!("{m}"))
        .unwrap_or_else(|| "not approved".into())
}

/// Render one or more runs as text; with two runs, a ratio column.
pub fn render(runs: &[RunReport]) -> String {
    let mut s = String::new();
    let Some(first) = runs.first() else {
        return s;
    };
    let heads: Vec<String> = runs.iter().map(RunReport::layout).collect();
    let ratio = runs.len() == 2;
    let row = |s: &mut String, name: &str, vals: Vec<String>, r: Option<String>| {
        let _ = write!(s, "{name:<W$}");
        for v in vals {
            let _ = write!(s, "{v:>16}");
        }
        if let Some(r) = r {
            let _ = write!(s, "{r:>10}");
        }
        s.push('\n');
    };
    let header = |s: &mut String, title: &str| {
        s.push('\n');
        row(s, title, heads.clone(), ratio.then(|| "ratio".to_owned()));
    };
    let ratio_of = |a: f64, b: f64| {
        ratio.then(|| {
            if a > 0.0 {
                format!("{:.2}", b / a)
            } else {
                "-".into()
            }
        })
    };

    let _ = writeln!(
        s,
        "{} — {} validators, {} cores, {} blocks, clock {}, seed {}",
        first.name, first.n_validators, first.n_cores, first.num_blocks, first.clock, first.seed
    );
    header(&mut s, "Approval, ms after slot start");
    for (i, b) in first.blocks.iter().enumerate() {
        let vals = runs
            .iter()
            .map(|r| ms(r.blocks.get(i).and_then(|x| x.approved_after_ms)))
            .collect();
        row(&mut s, &format!("block {}", b.number), vals, None);
    }

    header(&mut s, "Network, KiB per block");
    let kib = |v: f64| format!("{v:.2}");
    let rx: Vec<f64> = runs
        .iter()
        .map(|r| r.network.received_kib_per_block)
        .collect();
    let tx: Vec<f64> = runs.iter().map(|r| r.network.sent_kib_per_block).collect();
    row(
        &mut s,
        "received from peers",
        rx.iter().map(|v| kib(*v)).collect(),
        ratio_of(rx[0], *rx.last().unwrap()),
    );
    row(
        &mut s,
        "sent to peers",
        tx.iter().map(|v| kib(*v)).collect(),
        ratio_of(tx[0], *tx.last().unwrap()),
    );
    let totals: Vec<String> = runs
        .iter()
        .map(|r| {
            format!(
                "{:.1}",
                (r.network.received_bytes + r.network.sent_bytes) as f64 / 1024.0
            )
        })
        .collect();
    row(&mut s, "total KiB in + out", totals, None);

    header(&mut s, "CPU, seconds per block");
    let mut names: Vec<String> = Vec::new();
    for r in runs {
        for c in &r.cpu {
            if !names.contains(&c.name) {
                names.push(c.name.clone());
            }
        }
    }
    for name in &names {
        let vals: Vec<Option<f64>> = runs
            .iter()
            .map(|r| {
                r.cpu
                    .iter()
                    .find(|c| &c.name == name)
                    .map(|c| c.per_block_s)
            })
            .collect();
        let shown = vals
            .iter()
            .map(|v| v.map(|x| format!("{x:.4}")).unwrap_or_else(|| "-".into()))
            .collect();
        row(&mut s, name, shown, None);
    }
    let node: Vec<f64> = runs
        .iter()
        .map(|r| r.node_cpu_s / f64::from(r.num_blocks.max(1)))
        .collect();
    row(
        &mut s,
        "node total",
        node.iter().map(|v| format!("{v:.4}")).collect(),
        ratio_of(node[0], *node.last().unwrap()),
    );
    row(
        &mut s,
        "crypto floor (1 thread, after the run)",
        runs.iter()
            .map(|r| format!("{:.4}", r.crypto_floor.per_block_s))
            .collect(),
        None,
    );
    row(
        &mut s,
        "node total / crypto floor",
        runs.iter()
            .map(|r| format!("{:.2}", r.crypto_floor.node_ratio))
            .collect(),
        None,
    );

    header(&mut s, "Messages");
    let count = |f: fn(&Counts) -> u64| {
        runs.iter()
            .map(|r| f(&r.counts).to_string())
            .collect::<Vec<_>>()
    };
    row(
        &mut s,
        "unique messages from peers",
        count(|c| c.unique_messages),
        None,
    );
    row(
        &mut s,
        "deliveries to the node",
        count(|c| c.deliveries),
        None,
    );
    row(&mut s, "lost by the network", count(|c| c.lost), None);
    row(
        &mut s,
        "withheld approvals (no-shows)",
        count(|c| c.withheld_approvals),
        None,
    );
    row(
        &mut s,
        "notifications sent by the node",
        count(|c| c.messages_from_node),
        None,
    );
    row(
        &mut s,
        "signature and certificate checks",
        count(|c| c.verifications),
        None,
    );

    header(&mut s, "Run");
    row(
        &mut s,
        "wall time, s",
        runs.iter()
            .map(|r| format!("{:.2}", r.wall_time_s))
            .collect(),
        None,
    );
    row(
        &mut s,
        "peak memory, MiB",
        runs.iter()
            .map(|r| format!("{:.1}", r.peak_memory_bytes as f64 / 1048576.0))
            .collect(),
        None,
    );
    let g = &first.generation;
    let _ = writeln!(
        s,
        "\nmessages: {} ({}, {:.2} s, {:.1} MiB)",
        g.cache_file,
        if g.cache_hit {
            "cache hit"
        } else {
            "generated"
        },
        g.time_s,
        g.cache_bytes as f64 / 1048576.0
    );
    s
}
