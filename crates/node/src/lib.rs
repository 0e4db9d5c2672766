//! Runtimes that drive the voting and distribution state machines on real
//! threads: the classic layout (one distribution worker, one voting worker
//! that checks crypto) and the parallel layout (a router, N distribution
//! workers that check crypto, one voting worker), with real and virtual
//! clocks, metered channels and per-thread CPU accounting.

pub mod channel;
pub mod clock;
pub mod cpu;
pub mod worker;
