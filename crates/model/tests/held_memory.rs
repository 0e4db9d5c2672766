//! Memory per held block stays flat as blocks pile up unfinalized (issue
//! 61): a small network without finality, every tranche triggered, run to
//! the end of every block's tranches with 4 and with 8 blocks; the bytes
//! the validators still hold at the end, per block, must not grow with
//! the number of blocks held. Counted by this test binary's allocator:
//! live bytes (allocated less freed) on the test's own thread, where the
//! whole network runs.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::collections::BTreeMap;

mod by_hand;

use tranche_config::approval_network::parse;
use tranche_model::member::{Packet, SimNode};
use tranche_model::setup::Shared;
use tranche_model::verdicts::{Verdicts, Verify};

thread_local! {
    static LIVE: Cell<i64> = const { Cell::new(0) };
}

fn add(bytes: i64) {
    // `try_with`: the thread's own count may be gone while it exits.
    let _ = LIVE.try_with(|c| c.set(c.get() + bytes));
}

struct Counting;

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        add(layout.size() as i64);
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        add(layout.size() as i64);
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        add(-(layout.size() as i64));
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        add(new_size as i64 - layout.size() as i64);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn live() -> i64 {
    LIVE.with(Cell::get)
}

/// Run a network of `blocks` blocks to its end (every tranche of every
/// block sent, nothing finalized, so nothing pruned) and return the bytes
/// its validators hold at the end, beyond what they held before the first
/// block.
fn held_bytes(blocks: u32) -> i64 {
    let spec = parse(
        &format!(
            "!ApprovalNetwork\nn_validators: 16\nn_cores: 3\nnum_blocks: {blocks}\n\
             needed_approvals: 6\ntrigger_all_tranches: true\nfinality: false\n\
             run_after_last_block_secs: 50\n"
        ),
        "test",
    )
    .unwrap();
    let shared = Shared::new(&spec, 7, Verify::Model);
    let verdicts = Verdicts::new(Verify::Model, false, &shared.verdicts);
    let mut nodes: Vec<SimNode> = (0..spec.n_validators).map(|v| shared.node(v)).collect();
    let mut due: BTreeMap<u64, Vec<Packet>> = BTreeMap::new();
    let mut out: Vec<(u64, Packet)> = Vec::with_capacity(1 << 16);
    let before = live();
    let mut now = shared.start_ms;
    while now <= shared.end_ms {
        let arrived = due.remove(&now).unwrap_or_default();
        let mut by_node: Vec<Vec<Packet>> = vec![Vec::new(); spec.n_validators as usize];
        for p in arrived {
            by_node[p.to as usize].push(p);
        }
        for (v, mine) in by_node.into_iter().enumerate() {
            nodes[v].moment(now, mine, &verdicts, &shared.model, &mut out);
        }
        for (at, packet) in out.drain(..) {
            due.entry(at.max(now + 1)).or_default().push(packet);
        }
        now = match by_hand::next_moment(now, &due, &nodes) {
            Some(t) => t,
            None => break,
        };
    }
    assert!(due.is_empty(), "the run ended with packets in flight");
    let held = live() - before;
    drop(nodes);
    held
}

#[test]
fn memory_per_held_block_stays_flat_as_unfinalized_blocks_pile_up() {
    let (four, eight) = (held_bytes(4), held_bytes(8));
    let (per4, per8) = (four as f64 / 4.0, eight as f64 / 8.0);
    let seen = format!(
        "held at the end: 4 blocks {four} B ({per4:.0} B a block), 8 blocks {eight} B \
         ({per8:.0} B a block)"
    );
    eprintln!("{seen}");
    // Not vacuous: the blocks are held (nothing finalized prunes them).
    assert!(four > 0 && eight > four, "{seen}");
    // Flat: twice the blocks hold about twice the bytes, not more (a
    // cost per held block that grew with the blocks held would show
    // here); a quarter's slack for the collections' doubling.
    assert!(per8 <= per4 * 1.25, "{seen}");
}
