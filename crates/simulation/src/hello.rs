//! What each end of a rendezvous connection says first (`rendezvous`):
//! a magic with the rendezvous's version, the kind of connection, the
//! process index, the process and thread counts, a fingerprint of the
//! simulated network and the sender's nonce — a number drawn once per
//! process instance, which ties a process's data and control connections
//! together, so that a second process started with the same `--process`
//! is told apart from the first. Nothing here is secret or signed: the
//! hello tells a tranche process from a stranger, and a process started
//! with other flags from a good one; what the rendezvous trusts is in
//! docs/network.md.

use std::fmt;
use std::hash::{BuildHasher, Hasher};

/// `tranche` and the rendezvous's version: 2 since the nonce.
const MAGIC: [u8; 8] = *b"tranche2";
/// Bytes of a hello: the magic, the kind, five words.
pub const HELLO_LEN: usize = 8 + 1 + 5 * 8;

/// The two connections a pair of processes may have.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// Timely's data, between every pair of processes.
    Data = 0,
    /// The cost figures, from every process to process 0 (`gather`).
    Control = 1,
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Kind::Data => "data",
            Kind::Control => "control",
        })
    }
}

/// What each end says first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hello {
    pub kind: Kind,
    pub index: u64,
    pub processes: u64,
    pub threads: u64,
    pub fingerprint: u64,
    /// Drawn once per process instance ([`nonce`]).
    pub nonce: u64,
}

/// Bytes that are not a hello of this version.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NotHello {
    /// Not `tranche` at all.
    Stranger,
    /// `tranche` and another version (its byte, when printable).
    OtherVersion(Option<char>),
    /// A kind of connection there is none of.
    UnknownKind(u8),
}

impl NotHello {
    /// A short name of the kind, for counting repeats.
    pub fn key(&self) -> &'static str {
        match self {
            NotHello::Stranger => "stranger",
            NotHello::OtherVersion(_) => "version",
            NotHello::UnknownKind(_) => "kind",
        }
    }
}

impl fmt::Display for NotHello {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NotHello::Stranger => f.write_str("not a tranche hello"),
            NotHello::OtherVersion(Some(v)) => {
                write!(f, "a hello of another tranche version (tranche{v})")
            }
            NotHello::OtherVersion(None) => f.write_str("a hello of another tranche version"),
            NotHello::UnknownKind(k) => write!(f, "a hello of unknown kind {k}"),
        }
    }
}

impl Hello {
    pub fn bytes(&self) -> [u8; HELLO_LEN] {
        let mut b = [0u8; HELLO_LEN];
        b[..8].copy_from_slice(&MAGIC);
        b[8] = self.kind as u8;
        let words = [
            self.index,
            self.processes,
            self.threads,
            self.fingerprint,
            self.nonce,
        ];
        for (i, v) in words.into_iter().enumerate() {
            b[9 + 8 * i..17 + 8 * i].copy_from_slice(&v.to_be_bytes());
        }
        b
    }

    /// Whether `b`, the first bytes of a hello, start as this version's
    /// do: so garbage is told before it is whole. Fewer than 8 bytes are
    /// judged only when they already differ from the magic.
    pub fn check_magic(b: &[u8]) -> Result<(), NotHello> {
        let n = b.len().min(MAGIC.len());
        if b[..n] == MAGIC[..n] {
            Ok(())
        } else if n == MAGIC.len() && b[..7] == MAGIC[..7] {
            let v = char::from(b[7]);
            Err(NotHello::OtherVersion(
                v.is_ascii_alphanumeric().then_some(v),
            ))
        } else {
            Err(NotHello::Stranger)
        }
    }

    /// What the first bytes `got` of a connection are so far: not a hello
    /// (`Err`, told by the magic as soon as 8 bytes came, or by the kind
    /// once whole), a whole hello (`Ok(Some)`: the first [`HELLO_LEN`]
    /// bytes, any after them are not read), or not yet either.
    pub fn read(got: &[u8]) -> Result<Option<Hello>, NotHello> {
        if got.len() >= MAGIC.len() {
            Hello::check_magic(got)?;
        }
        match got.first_chunk::<HELLO_LEN>() {
            Some(whole) => Hello::parse(whole).map(Some),
            None => Ok(None),
        }
    }

    /// The hello in `b`, or what else it is.
    pub fn parse(b: &[u8; HELLO_LEN]) -> Result<Hello, NotHello> {
        Hello::check_magic(b)?;
        let kind = match b[8] {
            0 => Kind::Data,
            1 => Kind::Control,
            k => return Err(NotHello::UnknownKind(k)),
        };
        let word = |i: usize| {
            let mut w = [0u8; 8];
            w.copy_from_slice(&b[9 + 8 * i..17 + 8 * i]);
            u64::from_be_bytes(w)
        };
        Ok(Hello {
            kind,
            index: word(0),
            processes: word(1),
            threads: word(2),
            fingerprint: word(3),
            nonce: word(4),
        })
    }

    /// Why a process saying `theirs` cannot run with this one (`self`),
    /// as a phrase about it: the same answer at both ends.
    pub fn mismatch(&self, theirs: &Hello) -> Option<String> {
        if theirs.processes != self.processes {
            Some(format!(
                "was started with --processes {}, this one with {}",
                theirs.processes, self.processes
            ))
        } else if theirs.threads != self.threads {
            Some(format!(
                "was started with --threads {}, this one with {}",
                theirs.threads, self.threads
            ))
        } else if theirs.fingerprint != self.fingerprint {
            Some(
                "simulates another network (the file, an override, --seed, --verify or --costs \
                 differ)"
                    .to_owned(),
            )
        } else {
            None
        }
    }
}

/// A number for this process instance: different for every call (std's
/// random hash keys, the process id and the time), so two processes
/// started alike — or two runs in one test process — never share one.
pub fn nonce() -> u64 {
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u32(std::process::id());
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
    h.write_u128(now.map_or(0, |d| d.as_nanos()));
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hello() -> Hello {
        Hello {
            kind: Kind::Control,
            index: 3,
            processes: 4,
            threads: 2,
            fingerprint: u64::MAX - 7,
            nonce: 0x0123_4567_89ab_cdef,
        }
    }

    #[test]
    fn a_hello_reads_back_as_written() {
        assert_eq!(Hello::parse(&hello().bytes()), Ok(hello()));
    }

    #[test]
    fn what_is_not_a_hello_says_what_it_is() {
        let mut b = [b'.'; HELLO_LEN];
        assert_eq!(Hello::parse(&b), Err(NotHello::Stranger));
        b[..8].copy_from_slice(b"tranche1");
        let old = Hello::parse(&b).unwrap_err();
        assert_eq!(
            old.to_string(),
            "a hello of another tranche version (tranche1)"
        );
        b[7] = 0;
        assert_eq!(Hello::parse(&b), Err(NotHello::OtherVersion(None)));
        // Short, the bytes so far are judged only where they differ.
        assert_eq!(Hello::check_magic(b"tra"), Ok(()));
        assert_eq!(Hello::check_magic(b"GET"), Err(NotHello::Stranger));
        assert_eq!(Hello::read(b"tranche2"), Ok(None));
        assert_eq!(
            Hello::read(b"tranche1"),
            Err(NotHello::OtherVersion(Some('1')))
        );
        let mut long = hello().bytes().to_vec();
        long.extend_from_slice(b"more");
        assert_eq!(Hello::read(&long), Ok(Some(hello())));
        let mut b = hello().bytes();
        b[8] = 7;
        assert_eq!(Hello::parse(&b), Err(NotHello::UnknownKind(7)));
    }

    #[test]
    fn a_mismatch_is_named_and_the_same_at_both_ends() {
        let mine = hello();
        assert_eq!(mine.mismatch(&mine), None);
        let other_nonce = Hello { nonce: 1, ..mine };
        assert_eq!(
            mine.mismatch(&other_nonce),
            None,
            "the nonce is no mismatch"
        );
        let threads = Hello { threads: 3, ..mine };
        assert_eq!(
            mine.mismatch(&threads).unwrap(),
            "was started with --threads 3, this one with 2"
        );
        assert_eq!(
            threads.mismatch(&mine).unwrap(),
            "was started with --threads 2, this one with 3"
        );
        let network = Hello {
            fingerprint: 1,
            ..mine
        };
        assert!(mine
            .mismatch(&network)
            .unwrap()
            .starts_with("simulates another network"));
    }

    #[test]
    fn every_nonce_differs() {
        let a: std::collections::BTreeSet<u64> = (0..100).map(|_| nonce()).collect();
        assert_eq!(a.len(), 100);
    }
}
