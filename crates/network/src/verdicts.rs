//! Crypto once per message: the verdict of every assignment certificate
//! and approval signature, computed by the first node of a process that
//! needs it and shared with every other node of that process. A verdict is
//! a pure function of the message (its block fixes the session's keys and
//! the candidates), so a cached verdict is exactly what any honest node
//! would compute; only the CPU spent differs. `Verify::Every` turns the
//! cache off and every node checks for itself.

use parity_scale_codec::Encode;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use tranche_distribution::{ApprovalCheck, ApprovalVerdict, AssignmentCheck, AssignmentVerdict};

/// Who verifies a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Verify {
    /// The first node of each process that receives it; the others reuse
    /// the verdict.
    #[default]
    Once,
    /// Every node that receives it (small networks only).
    Every,
}

/// The shared verdicts of one process, keyed by the message's encoding.
#[derive(Default)]
pub struct Verdicts {
    mode: Verify,
    assignments: Mutex<HashMap<Vec<u8>, AssignmentVerdict>>,
    approvals: Mutex<HashMap<Vec<u8>, ApprovalVerdict>>,
    verified: AtomicU64,
    reused: AtomicU64,
}

impl Verdicts {
    pub fn new(mode: Verify) -> Self {
        Verdicts {
            mode,
            ..Verdicts::default()
        }
    }

    /// The verdict of an assignment certificate.
    pub fn assignment(&self, check: &AssignmentCheck) -> AssignmentVerdict {
        if self.mode == Verify::Every {
            self.verified.fetch_add(1, Ordering::Relaxed);
            return check.check();
        }
        let key = check.assignment.encode();
        if let Some(v) = self.assignments.lock().expect("not poisoned").get(&key) {
            self.reused.fetch_add(1, Ordering::Relaxed);
            return *v;
        }
        // Verified outside the lock; two threads may both verify a message
        // that arrives at both at once, and they agree.
        let verdict = check.check();
        self.verified.fetch_add(1, Ordering::Relaxed);
        self.assignments
            .lock()
            .expect("not poisoned")
            .insert(key, verdict);
        verdict
    }

    /// The verdict of an approval signature.
    pub fn approval(&self, check: &ApprovalCheck) -> ApprovalVerdict {
        if self.mode == Verify::Every {
            self.verified.fetch_add(1, Ordering::Relaxed);
            return check.check();
        }
        let key = check.vote.encode();
        if let Some(v) = self.approvals.lock().expect("not poisoned").get(&key) {
            self.reused.fetch_add(1, Ordering::Relaxed);
            return *v;
        }
        let verdict = check.check();
        self.verified.fetch_add(1, Ordering::Relaxed);
        self.approvals
            .lock()
            .expect("not poisoned")
            .insert(key, verdict);
        verdict
    }

    /// Checks run for real, and verdicts reused, so far in this process.
    pub fn counts(&self) -> (u64, u64) {
        (
            self.verified.load(Ordering::Relaxed),
            self.reused.load(Ordering::Relaxed),
        )
    }
}
