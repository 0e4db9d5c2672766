//! One validator of the whole-network simulation (`tranche network`), as
//! a model in virtual time: sans-IO, without the engine that moves
//! packets between validators (`tranche_simulation`), so it can be driven
//! and tested on its own.
//!
//! # What is modelled
//!
//! **Real**, as a node runs it:
//!
//! * each validator's own assignment key and approval key, its own
//!   assignments computed with real VRFs when voting's timers say its
//!   tranche has come, its approvals signed for real and coalesced by the
//!   voting state machine up to the session's `max_approval_coalesce_count`;
//! * the voting state machine (`crates/voting`, after upstream
//!   `polkadot/node/core/approval-voting/src/lib.rs`) and the distribution
//!   state machine (`crates/distribution`, after upstream
//!   `polkadot/node/network/approval-distribution/src/lib.rs`) of every
//!   validator, wired as the node's parallel layout wires them
//!   (`crates/node/src/distribution_worker.rs`): distribution checks each
//!   new message and hands what passes to voting; voting's due timers run
//!   one at a time, as the node's on a real clock do;
//! * gossip over the session's grid (a seeded shuffle) with random routing,
//!   per-peer knowledge and deduplication; notifications cut by upstream's
//!   limits and encoded as v3 wire messages, decoded by the receiver; their
//!   bytes are what the bandwidth and the counters see.
//!
//! **Modelled** (`drawn`), every draw seeded by the run's seed:
//!
//! * a candidate check (availability recovery and validation) is a delay
//!   drawn per check from `check_delay_ms` (normal, truncated at zero,
//!   rounded up to the 500 ms tick voting runs on), `slow_factor` times
//!   longer on slow validators;
//! * every pair of validators is linked; a link's one-way latency is drawn
//!   once (normal, as `!ApprovalVoting`'s `latency`, at least 1 ms), every
//!   validator has the same bandwidth for egress and ingress (the token
//!   bucket of upstream's `polkadot/node/subsystem-bench/src/lib/network.rs`,
//!   as `crates/links/src/limiter.rs` has it);
//! * connections (`peers`): a notification fails with `loss_probability`,
//!   which disconnects the pair (upstream's substreams are reliable: a
//!   failure is a disconnect); it reconnects after a delay drawn from
//!   `reconnect_delay_ms`, the views travel over the links and
//!   distribution's `unify_with_peer` re-sends what the other lacks;
//!   reputation changes are summed per peer and a peer below upstream's
//!   ban threshold is disconnected (decay over time is not modelled);
//! * every validator imports each block at the start of its slot, and
//!   learns at that moment that its connected peers did (views after a
//!   reconnect travel over the links; those at a block import do not);
//! * finality, only with `finality: true`, is GRANDPA
//!   (`substrate/client/consensus/grandpa`) reduced to its rule, votes
//!   gated on approval as `polkadot/node/core/approval-voting` gates them:
//!   each validator tells every other one (over the links' latency,
//!   never lost, outside distribution's bytes and bandwidth) the highest
//!   block it approved with all its ancestors, and finalizes the highest
//!   block more than two thirds of the validators voted for — voting and
//!   distribution prune it, and the peers' views carry the new finalized
//!   number from that moment. Without it nothing is finalized, and
//!   distribution's aggression starts once 16 blocks are unfinalized;
//! * no-show validators trigger and send their assignments but never their
//!   approvals; offline validators stop handling and sending anything at
//!   their block's slot and disconnect from everyone (their peers learn it
//!   over the latency); with `until_block` they come back at that block's
//!   slot, import what they missed and connect everyone again;
//! * with `trigger_all_tranches`, every validator triggers its assignment
//!   of every tranche when the tranche comes (upstream's throughput test
//!   load; not upstream behaviour, a voting `Config` flag);
//! * with `node: {layout, workers, cores, cpu_scale, batch}`, every validator's CPU
//!   (`busy`, `cpu`, `costs`): each input costs the cost table's virtual
//!   time on the threads of the layout (classic: distribution waits on
//!   voting for every check; parallel: router, workers by validator index,
//!   voting), the threads share the validator's cores, queues are bounded
//!   at the node's sizes, and what an input causes happens when its
//!   handling is done. The table's defaults are this project's measured
//!   figures (`costs`); `tranche network --costs FILE` reads another.
//!   Without `node` every input takes no time.
//!
//! **Shared** (`verdicts`): each assignment certificate and approval
//! signature is verified once network-wide, by its own validator's process
//! as it leaves that node; every other node reuses the verdict — through
//! the process's cache, and in other processes through the verdicts the
//! packets carry — which is the one it would have computed. `--verify
//! every` makes every node verify; `--verify model` runs no check at all
//! (every verdict valid, an assignment's tranche recorded by its maker);
//! the CPU model charges a check at every validator that handles it,
//! whichever process ran the crypto. What every validator of a process
//! holds alike is held once (`setup`): the blocks and their candidates
//! (a block copied into voting and distribution shares its candidate
//! list), the session, the gossip grid's tables, and each message's
//! decoded items (a notification's items are shared by every copy of it).
//!
//! **Left out**: the CPU model runs the node's own work on its threads but
//! not the rest of a validator (availability, backing, GRANDPA's own
//! messages, the network stack); own work (a block import, our approvals'
//! signatures, a commit) is charged on the voting thread without delaying
//! its own effect; the parallel node's signatures are charged at the
//! batched cost whatever the size of the batch a worker drained, and its
//! checked-ahead certificates as certificates checked alone; views at a
//! block import do not travel over the links; reputation does not decay.
//!
//! Modules, each owning its state: `protocol` (one validator's protocol
//! — voting and distribution wired as the node wires them, what voting's
//! actions do in `effects` — driven one moment at a time,
//! `Protocol::moment` being the one order of work in a moment), `moment`
//! (a moment as data: what the links delivered, what it made ready for
//! them), `peers` (its connections,
//! reputation, reconnects, going offline and back: the protocol's own
//! state, so that no moment waits on an answer from the links) and
//! `connections` (what the protocol sends over them and hears about
//! them), `fixed` (the validator among fixed peers — the
//! benchmark's node under test — its outputs handed back as the
//! benchmark's), `member` (a validator of the simulated network: its
//! protocol, its end of the links in `port`, its record), `finality` (the
//! votes and GRANDPA's rule), `busy` (the validator's CPU: what runs on
//! which thread and when), `cpu` (threads sharing a validator's cores in
//! virtual time, and the node's shape), `costs` (the cost table), `drawn`
//! (behaviours and check durations; the links are `tranche_links::mesh`),
//! `verdicts` (shared verdicts, and the verifier distribution's settle
//! loop uses), `setup` (what a process shares), `packet` (what travels),
//! `record` (what a validator records: `tranche_records::record`), `time`
//! (the clocks and their conversions).

mod busy;
mod connections;
pub mod costs;
pub mod cpu;
pub mod drawn;
mod effects;
mod finality;
pub mod fixed;
pub mod member;
pub mod moment;
pub mod packet;
pub mod peers;
mod port;
pub mod protocol;
pub use tranche_records::record;
pub mod setup;
pub mod time;
pub mod verdicts;

pub use costs::{CostKind, CostTable, CostsError};
pub use cpu::shape::{BuildError, Layout, NodeShape, NodeThreads, ShapeError};
pub use cpu::{Cpu, CpuError, Event, Rejected, ThreadId, ThreadSpec};
pub use verdicts::Verify;
