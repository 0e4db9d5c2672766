//! A duplicate costs no allocation of its own: a notification whose items
//! a validator has all received before — most of what reaches a validator
//! — is taken in without allocating (issue 45: "no allocation per
//! delivery"; a notification carries its item in place), but for the
//! held knowledge growing (distribution's per-block arena of who sent
//! what, which grows by doubling as a block's items arrive). Counted by
//! this test binary's allocator, on the test's own thread only. Without
//! the CPU model: with it, a notification is handled in a later moment,
//! among the validator's other work (BENCHMARKS.md counts that path:
//! "One job a moment, and no list allocated per delivery").

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

mod by_hand;

use tranche_config::approval_network::parse;
use tranche_model::member::{Packet, SimNode};
use tranche_model::setup::Shared;
use tranche_model::verdicts::{Verdicts, Verify};
use tranche_primitives::ApprovalDistributionMessage;

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

fn count() {
    // `try_with`: the thread's own count may be gone while it exits.
    let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
}

struct Counting;

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count();
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn allocations() -> u64 {
    ALLOCATIONS.with(Cell::get)
}

/// Where each of a notification's items lives: the same item delivered
/// twice is the same shared item in one process.
fn items(message: &ApprovalDistributionMessage) -> Vec<usize> {
    match message {
        ApprovalDistributionMessage::Assignments(v) => {
            v.iter().map(|a| Arc::as_ptr(a) as usize).collect()
        }
        ApprovalDistributionMessage::Approvals(v) => {
            v.iter().map(|a| Arc::as_ptr(a) as usize).collect()
        }
    }
}

/// Every validator of a small network run by hand, each packet delivered
/// a millisecond after it leaves. Validator 0 takes each moment twice:
/// first with nothing delivered (its timers and blocks), then with what
/// arrived; the second call's allocations are counted where every item
/// delivered is one it received before. One allocation a delivery would
/// be one a duplicate; what is allowed is the knowledge's growth, at
/// most one in eight duplicates and in a quarter of the moments.
#[test]
fn a_notification_of_items_already_received_allocates_nothing() {
    for seed in [7, 8] {
        let spec = parse(
            "!ApprovalNetwork\nn_validators: 16\nn_cores: 3\nnum_blocks: 2\n\
             needed_approvals: 6\ntrigger_all_tranches: true\n\
             run_after_last_block_secs: 10\n",
            "test",
        )
        .unwrap();
        let shared = Shared::new(&spec, seed, Verify::Model);
        let verdicts = Verdicts::new(Verify::Model, false, &shared.verdicts);
        let mut nodes: Vec<SimNode> = (0..spec.n_validators).map(|v| shared.node(v)).collect();
        let mut due: BTreeMap<u64, Vec<Packet>> = BTreeMap::new();
        let mut out: Vec<(u64, Packet)> = Vec::with_capacity(1 << 16);
        let mut seen: HashSet<usize> = HashSet::new();
        let (mut duplicate_moments, mut duplicates) = (0u32, 0u32);
        let (mut allocating_moments, mut allocated) = (0u32, 0u64);
        let mut now = shared.start_ms;
        while now <= shared.end_ms {
            let mut arrived = due.remove(&now).unwrap_or_default();
            arrived.sort_by_key(|p| (p.to, p.from, p.seq));
            for v in 0..spec.n_validators {
                let mine: Vec<Packet> = arrived.iter().filter(|p| p.to == v).cloned().collect();
                let node = &mut nodes[v as usize];
                if v != 0 {
                    node.moment(now, mine, &verdicts, &shared.model, &mut out);
                    continue;
                }
                node.moment(now, Vec::new(), &verdicts, &shared.model, &mut out);
                let messages: Vec<Vec<usize>> = mine
                    .iter()
                    .filter_map(|p| p.message.as_ref().map(items))
                    .collect();
                let all_seen = !mine.is_empty()
                    && messages.len() == mine.len()
                    && messages.iter().flatten().all(|i| seen.contains(i));
                seen.extend(messages.into_iter().flatten());
                let count = mine.len() as u32;
                let before = allocations();
                node.moment(now, mine, &verdicts, &shared.model, &mut out);
                let made = allocations() - before;
                if all_seen {
                    duplicate_moments += 1;
                    duplicates += count;
                    allocated += made;
                    allocating_moments += u32::from(made > 0);
                }
            }
            for (at, packet) in out.drain(..) {
                due.entry(at.max(now + 1)).or_default().push(packet);
            }
            now = match by_hand::next_moment(now, &due, &nodes) {
                Some(t) => t,
                None => break,
            };
        }
        let seen = format!(
            "seed {seed}: {allocated} allocations in {allocating_moments} of \
             {duplicate_moments} moments of {duplicates} duplicates"
        );
        // Not vacuous: the run is full of duplicates.
        assert!(duplicate_moments > 20 && duplicates > 100, "{seen}");
        assert!(allocated * 8 <= u64::from(duplicates), "{seen}");
        assert!(allocating_moments * 4 <= duplicate_moments, "{seen}");
    }
}
