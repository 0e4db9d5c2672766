//! The simulation's CPU model at a glance (with the `!ApprovalNetwork` key
//! `node`): for each thread of the layout, by name, how busy the model kept
//! it over the validators (p50 and max) and on which validators it
//! saturated; the same for the validator's cores, all threads together.
//!
//! Busy is a thread's modelled CPU time per block ÷ the slot (6 s): the
//! share of each block's slot the thread needs. 100 % or more means the
//! thread cannot keep up with a block per slot — it is saturated, its queue
//! grows from block to block. The cores' line is every thread's CPU per
//! block ÷ (the cores × the slot). The records carry the busy times in the
//! layout's thread order (`NodeRecord::cpu_busy_ms`); the names come from
//! the model crate (`tranche_model::cpu::shape::threads`), handed in by the
//! engine ([`SimulationReport::with_cpu_threads`]).

use super::{SimulationReport, ThreadBusy};
use std::fmt::Write as _;
use tranche_cli::text::counted;

/// At most five validators by index, then how many more.
fn some(validators: &[u32]) -> String {
    if validators.is_empty() {
        return "-".to_owned();
    }
    let mut s: Vec<String> = validators.iter().take(5).map(|v| format!("v{v}")).collect();
    if validators.len() > 5 {
        s.push(format!("+{} more", validators.len() - 5));
    }
    format!("{} ({})", validators.len(), s.join(", "))
}

/// The CPU model's lines of the network table.
pub(crate) trait CpuTable {
    /// One line per thread and one for the cores; empty without the CPU
    /// model.
    fn cpu_table(&self) -> String;
}

impl CpuTable for SimulationReport {
    /// The CPU model's lines of the table: one per thread and one for the
    /// cores; empty without the CPU model.
    fn cpu_table(&self) -> String {
        let (Some(cpu), Some(node)) = (&self.cpu, &self.spec.node) else {
            return String::new();
        };
        let mut s = String::new();
        let _ = writeln!(
            s,
            "CPU model: {} layout{}, {}, cpu_scale {}{}; busy = CPU per block ÷ the slot, over the validators",
            node.layout,
            if node.layout.name() == "parallel" {
                format!(" with {}", counted(node.workers, "worker"))
            } else {
                String::new()
            },
            counted(node.cores, "core"),
            node.cpu_scale,
            // Named where it is not the default, as the beside label does.
            if node.batch == tranche_config::node_shape::Batch::Moment {
                ", a job a moment (`batch: moment`)"
            } else {
                ""
            }
        );
        let width = cpu
            .threads
            .iter()
            .map(|t| t.name.len())
            .chain([20])
            .max()
            .unwrap_or(20);
        let pct = |v: f64| format!("{:.2} %", v * 100.0);
        let _ = writeln!(
            s,
            "  {:<width$} {:>10} {:>10}  saturated (busy ≥ 100 %) on validators",
            "thread", "p50 busy", "max busy"
        );
        let cores = ThreadBusy {
            name: format!("all ÷ {}", counted(node.cores, "core")),
            ..cpu.cores.clone()
        };
        for t in cpu.threads.iter().chain([&cores]) {
            let _ = writeln!(
                s,
                "  {:<width$} {:>10} {:>10}  {}",
                t.name,
                pct(t.p50_busy),
                pct(t.max_busy),
                some(&t.saturated)
            );
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::{CpuSummary, NodeRecord};

    fn record(v: u32, busy: Vec<u64>) -> NodeRecord {
        NodeRecord {
            validator: v,
            cpu_busy_ms: busy,
            ..NodeRecord::default()
        }
    }

    #[test]
    fn busy_is_cpu_per_block_over_the_slot_and_saturation_names_the_validators() {
        let names = vec!["router".to_owned(), "worker".to_owned()];
        // Two blocks: 12 s of slots. Worker at 3, 6 and 12 s: 25, 50, 100 %.
        let records = [
            record(0, vec![0, 3_000]),
            record(1, vec![0, 6_000]),
            record(2, vec![1_200, 12_000]),
        ];
        let s = CpuSummary::of(&names, &records, 2, 2).unwrap();
        assert_eq!(s.threads[0].name, "router");
        assert_eq!(s.threads[0].max_busy, 0.1);
        assert_eq!(s.threads[1].p50_busy, 0.5);
        assert_eq!(s.threads[1].max_busy, 1.0);
        assert_eq!(s.threads[1].saturated, vec![2]);
        // The cores: (1.2 + 12) s over 2 cores x 12 s.
        assert!((s.cores.max_busy - 0.55).abs() < 1e-9, "{:?}", s.cores);
        assert!(s.cores.saturated.is_empty());
        assert_eq!(CpuSummary::of(&names, &[record(0, vec![])], 2, 2), None);
    }

    #[test]
    fn a_long_list_of_validators_is_cut_to_five() {
        assert_eq!(some(&[]), "-");
        assert_eq!(some(&[1, 2]), "2 (v1, v2)");
        assert_eq!(
            some(&[1, 2, 3, 4, 5, 6, 7]),
            "7 (v1, v2, v3, v4, v5, +2 more)"
        );
    }
}
