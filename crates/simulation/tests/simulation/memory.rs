//! A finalized block's state is released: with `finality: true` the
//! memory a run holds at its peak does not grow with the number of blocks
//! (every validator's voting and distribution drop a block as it is
//! finalized, and so does what the process shares between them), where
//! without finality every block stays held.
//!
//! The bytes are counted by this test binary's allocator (live bytes and
//! their peak), in a child process per run — the binary's other tests run
//! beside each other and would count too — started from this binary with
//! the run to make in `TRANCHE_MEMORY_RUN`.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use tranche_config::approval_network::parse;
use tranche_simulation::{simulate, EngineConfig, Verify};

/// The system allocator, counting the bytes live and their peak.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(by: usize) {
    let live = LIVE.fetch_add(by, Ordering::Relaxed) + by;
    PEAK.fetch_max(live, Ordering::Relaxed);
}

// SAFETY: every call is passed to `System` unchanged; the counters only
// watch.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        unsafe { System.dealloc(p, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }
    unsafe fn realloc(&self, p: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let q = unsafe { System.realloc(p, layout, new_size) };
        if !q.is_null() {
            LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
            grew(new_size);
        }
        q
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

const RUN: &str = "TRANCHE_MEMORY_RUN";

/// The network of every run here: every tranche triggers, so that a block
/// holds as much as it can.
fn yaml(blocks: u32, finality: bool) -> String {
    format!(
        "!ApprovalNetwork\nn_validators: 20\nn_cores: 4\nneeded_approvals: 6\nnum_blocks: {blocks}\n\
         trigger_all_tranches: true\nfinality: {finality}\nrun_after_last_block_secs: 20\n"
    )
}

/// The peak bytes live while the simulation of `blocks` blocks ran, above
/// what was live before it, measured in a child process.
fn peak_of(blocks: u32, finality: bool) -> usize {
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["memory::one_run", "--exact", "--ignored", "--nocapture"])
        .args(["--test-threads", "1"])
        .env(RUN, format!("{blocks},{finality}"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    text.lines()
        .find_map(|l| l.split_once("peak_bytes=").map(|(_, n)| n))
        .unwrap_or_else(|| panic!("no peak in the child's output: {text}"))
        .trim()
        .parse()
        .unwrap()
}

#[test]
fn a_finalized_blocks_state_is_released_so_memory_is_flat_over_20_blocks() {
    let (held_5, held_20) = (peak_of(5, false), peak_of(20, false));
    let (final_5, final_20) = (peak_of(5, true), peak_of(20, true));
    println!("peaks: held {held_5} / {held_20}, finalized {final_5} / {final_20}");
    // Without finality every block stays: 15 more blocks cost 15 blocks'
    // state (the contrast that shows the measure can see a block).
    let per_block = held_20.saturating_sub(held_5) / 15;
    assert!(
        per_block > 20_000,
        "without finality, 5 blocks peak at {held_5} bytes, 20 at {held_20}"
    );
    // With it the peak holds the unfinalized window, not the run: 15 more
    // blocks add less than one block's state.
    assert!(
        final_20 < final_5 + per_block,
        "with finality 5 blocks peak at {final_5} bytes, 20 at {final_20} \
         (one held block is {per_block} bytes)"
    );
}

/// The child process of the test above: one run, its peak printed. Run
/// by that test only (it does nothing without `TRANCHE_MEMORY_RUN`).
#[test]
#[ignore = "a child process of a_finalized_blocks_state_is_released_so_memory_is_flat_over_20_blocks"]
fn one_run() {
    let Ok(run) = std::env::var(RUN) else {
        return;
    };
    let (blocks, finality) = run.split_once(',').unwrap();
    let spec = parse(&yaml(blocks.parse().unwrap(), finality == "true"), "test").unwrap();
    let engine = EngineConfig::default();
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let run = simulate(&spec, 1, Verify::Once, &engine, None)
        .unwrap()
        .unwrap();
    let peak = PEAK.load(Ordering::Relaxed) - before;
    for r in &run.records {
        for (i, b) in r.blocks.iter().enumerate() {
            assert!(
                b.approved_after_ms.is_some(),
                "validator {} block {i}",
                r.validator
            );
            let finalized = b.finalized_after_ms.is_some();
            assert_eq!(
                finalized,
                finality == "true",
                "validator {} block {i}",
                r.validator
            );
        }
    }
    println!("peak_bytes={peak}");
}
