//! Connecting the processes of a several-process run before timely takes
//! over: every pair of processes gets one TCP connection for timely's
//! data, and every process but 0 one more, a control connection to
//! process 0 (the cost figures travel on it at the end, `gather`).
//!
//! Timely's own cluster setup (`timely_communication::networking::
//! create_sockets`) retries forever and says nothing useful; this one
//! speaks the same pattern — process `i` connects to every process below
//! it and listens for the ones above on its own address, so no port is
//! bound twice — with a deadline. Each connection starts with a hello
//! both ways (a magic, the kind of connection, the process index, the
//! process and thread counts and a fingerprint of the simulated network),
//! so a process started with other flags or another file, or a stranger
//! on the port, is a one-line error rather than a garbled run. While it
//! waits longer than a second it says once, on stderr, for whom; past the
//! deadline it fails naming the processes that did not connect.

use crate::engine::{EngineConfig, EngineError};
use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

/// How a several-process run connects.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClusterOptions {
    /// How long to wait for every other process to connect.
    pub connect_timeout: Duration,
    /// Say on stderr, once after a second, whom this process waits for.
    pub tell_waiting: bool,
}

impl Default for ClusterOptions {
    fn default() -> Self {
        ClusterOptions {
            connect_timeout: Duration::from_secs(20),
            tell_waiting: true,
        }
    }
}

/// The connections of one process, indexed by the other process.
pub struct Links {
    /// Timely's data connections (none to itself).
    pub data: Vec<Option<TcpStream>>,
    /// Control connections: on process 0, from every other process; on
    /// the others, to process 0 only.
    pub control: Vec<Option<TcpStream>>,
}

const MAGIC: [u8; 8] = *b"tranche1";
const HELLO_LEN: usize = 8 + 1 + 4 * 8;
/// How long one hello may take once the TCP connection is up.
const HELLO_TIMEOUT: Duration = Duration::from_secs(5);
const POLL: Duration = Duration::from_millis(50);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Data = 0,
    Control = 1,
}

/// A connection of a kind to or from a process.
type Want = (Kind, usize);

/// What each end says first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Hello {
    kind: u8,
    index: u64,
    processes: u64,
    threads: u64,
    fingerprint: u64,
}

impl Hello {
    fn bytes(&self) -> [u8; HELLO_LEN] {
        let mut b = [0u8; HELLO_LEN];
        b[..8].copy_from_slice(&MAGIC);
        b[8] = self.kind;
        for (i, v) in [self.index, self.processes, self.threads, self.fingerprint]
            .into_iter()
            .enumerate()
        {
            b[9 + 8 * i..17 + 8 * i].copy_from_slice(&v.to_be_bytes());
        }
        b
    }

    /// The hello read from `s`: `Ok(None)` when the bytes are not a
    /// tranche hello.
    fn read(s: &mut TcpStream) -> io::Result<Option<Hello>> {
        let mut b = [0u8; HELLO_LEN];
        s.read_exact(&mut b)?;
        if b[..8] != MAGIC {
            return Ok(None);
        }
        let word = |i: usize| u64::from_be_bytes(b[9 + 8 * i..17 + 8 * i].try_into().unwrap());
        Ok(Some(Hello {
            kind: b[8],
            index: word(0),
            processes: word(1),
            threads: word(2),
            fingerprint: word(3),
        }))
    }
}

/// One process's view of the rendezvous.
struct Rendezvous<'a> {
    engine: &'a EngineConfig,
    fingerprint: u64,
    links: Links,
}

impl Rendezvous<'_> {
    fn hello(&self, kind: Kind) -> Hello {
        Hello {
            kind: kind as u8,
            index: self.engine.process as u64,
            processes: self.engine.processes as u64,
            threads: self.engine.threads as u64,
            fingerprint: self.fingerprint,
        }
    }

    fn address(&self, j: usize) -> &str {
        self.engine.hosts.get(j).map_or("?", String::as_str)
    }

    /// Why `theirs`, from process `theirs.index`, cannot run with us.
    fn mismatch(&self, theirs: &Hello) -> Option<EngineError> {
        let mine = self.hello(Kind::Data);
        let what = if theirs.processes != mine.processes {
            format!(
                "was started with --processes {}, this one with {}",
                theirs.processes, mine.processes
            )
        } else if theirs.threads != mine.threads {
            format!(
                "was started with --threads {}, this one with {}",
                theirs.threads, mine.threads
            )
        } else if theirs.fingerprint != mine.fingerprint {
            "simulates another network (the file, an override, --seed or --verify differ)"
                .to_owned()
        } else {
            return None;
        };
        let j = theirs.index as usize;
        Some(EngineError::Mismatch {
            process: j,
            address: self.address(j).to_owned(),
            what,
        })
    }

    fn slot(&mut self, kind: Kind, j: usize) -> &mut Option<TcpStream> {
        match kind {
            Kind::Data => &mut self.links.data[j],
            Kind::Control => &mut self.links.control[j],
        }
    }

    /// Connect to process `j`: `Ok(false)` to try again later.
    fn call(&mut self, kind: Kind, j: usize, addr: SocketAddr) -> Result<bool, EngineError> {
        let Ok(mut s) = TcpStream::connect_timeout(&addr, Duration::from_millis(200)) else {
            return Ok(false);
        };
        let greeted = s
            .set_read_timeout(Some(HELLO_TIMEOUT))
            .and_then(|()| s.write_all(&self.hello(kind).bytes()))
            .and_then(|()| Hello::read(&mut s));
        let theirs = match greeted {
            Err(_) => return Ok(false),
            Ok(None) => {
                return Err(EngineError::Stranger {
                    process: j,
                    address: self.address(j).to_owned(),
                })
            }
            Ok(Some(h)) => h,
        };
        if let Some(e) = self.mismatch(&theirs) {
            return Err(e);
        }
        if theirs.index as usize != j || theirs.kind != kind as u8 {
            return Err(EngineError::Stranger {
                process: j,
                address: self.address(j).to_owned(),
            });
        }
        *self.slot(kind, j) = Some(s);
        Ok(true)
    }

    /// Take a connection from a process above (or, on process 0, a
    /// control connection); a connection that is not a tranche hello is
    /// dropped.
    fn answer(&mut self, mut s: TcpStream) -> Result<(), EngineError> {
        let theirs = match s
            .set_nonblocking(false)
            .and_then(|()| s.set_read_timeout(Some(HELLO_TIMEOUT)))
            .and_then(|()| Hello::read(&mut s))
        {
            Ok(Some(h)) => h,
            _ => return Ok(()),
        };
        let kind = match theirs.kind {
            0 => Kind::Data,
            1 => Kind::Control,
            _ => return Ok(()),
        };
        // Answer even a mismatch, so both ends can say what is wrong.
        let answered = s.write_all(&self.hello(kind).bytes());
        if let Some(e) = self.mismatch(&theirs) {
            return Err(e);
        }
        let (j, me) = (theirs.index as usize, self.engine.process);
        let expected = match kind {
            Kind::Data => j > me && j < self.engine.processes,
            Kind::Control => me == 0 && j > 0 && j < self.engine.processes,
        };
        if answered.is_ok() && expected {
            *self.slot(kind, j) = Some(s);
        }
        Ok(())
    }

    /// The connections this process makes (to lower indices) and takes.
    fn wanted(&self) -> (Vec<Want>, Vec<Want>) {
        let (me, n) = (self.engine.process, self.engine.processes);
        let mut calls: Vec<Want> = (0..me).map(|j| (Kind::Data, j)).collect();
        let mut answers: Vec<Want> = (me + 1..n).map(|j| (Kind::Data, j)).collect();
        if me > 0 {
            calls.push((Kind::Control, 0));
        } else {
            answers.extend((1..n).map(|j| (Kind::Control, j)));
        }
        (calls, answers)
    }

    /// The processes some connection to or from is still missing for.
    fn missing(&self) -> Vec<usize> {
        let (calls, answers) = self.wanted();
        let mut m: Vec<usize> = calls
            .into_iter()
            .chain(answers)
            .filter(|&(kind, j)| match kind {
                Kind::Data => self.links.data[j].is_none(),
                Kind::Control => self.links.control[j].is_none(),
            })
            .map(|(_, j)| j)
            .collect();
        m.sort_unstable();
        m.dedup();
        m
    }

    /// `process 1 (host:port)` or `processes 1 (a), 2 (b)`.
    fn name(&self, ps: &[usize]) -> String {
        let each: Vec<String> = ps
            .iter()
            .map(|&j| format!("{j} ({})", self.address(j)))
            .collect();
        let noun = if ps.len() == 1 {
            "process"
        } else {
            "processes"
        };
        format!("{noun} {}", each.join(", "))
    }
}

fn resolve(engine: &EngineConfig, j: usize) -> Result<SocketAddr, EngineError> {
    let host = &engine.hosts[j];
    let fail = |cause: String| EngineError::Address {
        process: j,
        address: host.clone(),
        cause,
    };
    host.to_socket_addrs()
        .map_err(|e| fail(e.to_string()))?
        .next()
        .ok_or_else(|| fail("resolves to no address".to_owned()))
}

/// Connect this process to every other one of `engine` (several
/// processes, `engine.hosts` one per process), or fail naming whom it
/// waited for.
pub fn connect(
    engine: &EngineConfig,
    options: &ClusterOptions,
    fingerprint: u64,
) -> Result<Links, EngineError> {
    let n = engine.processes;
    let addrs = (0..n)
        .map(|j| resolve(engine, j))
        .collect::<Result<Vec<_>, _>>()?;
    let mut r = Rendezvous {
        engine,
        fingerprint,
        links: Links {
            data: (0..n).map(|_| None).collect(),
            control: (0..n).map(|_| None).collect(),
        },
    };
    let (calls, answers) = r.wanted();
    let me = engine.process;
    let listener = if answers.is_empty() {
        None
    } else {
        let l = TcpListener::bind(addrs[me])
            .and_then(|l| l.set_nonblocking(true).map(|()| l))
            .map_err(|e| EngineError::Listen {
                process: me,
                address: engine.hosts[me].clone(),
                cause: e.to_string(),
            })?;
        Some(l)
    };
    let start = Instant::now();
    let mut told = false;
    loop {
        for &(kind, j) in &calls {
            if r.slot(kind, j).is_none() {
                r.call(kind, j, addrs[j])?;
            }
        }
        while let Some(l) = &listener {
            match l.accept() {
                Ok((s, _)) => r.answer(s)?,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    return Err(EngineError::Listen {
                        process: me,
                        address: engine.hosts[me].clone(),
                        cause: e.to_string(),
                    })
                }
            }
        }
        let missing = r.missing();
        if missing.is_empty() {
            break;
        }
        let waited = start.elapsed();
        if waited >= options.connect_timeout {
            return Err(EngineError::NotConnected {
                missing: r.name(&missing),
                secs: options.connect_timeout.as_secs_f64(),
            });
        }
        if options.tell_waiting && !told && waited >= Duration::from_secs(1) {
            told = true;
            eprintln!(
                "process {me}: waiting for {} to connect (up to {} s)",
                r.name(&missing),
                options.connect_timeout.as_secs_f64()
            );
        }
        std::thread::sleep(POLL);
    }
    let links = r.links;
    for s in links.data.iter().chain(&links.control).flatten() {
        // Timely's threads block on reads: no deadline left behind.
        s.set_read_timeout(None)
            .and_then(|()| s.set_nodelay(true))
            .map_err(|e| EngineError::Timely(e.to_string()))?;
    }
    Ok(links)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hello_reads_back_as_written() {
        let h = Hello {
            kind: 1,
            index: 3,
            processes: 4,
            threads: 2,
            fingerprint: u64::MAX - 7,
        };
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let mut a = TcpStream::connect(l.local_addr().unwrap()).unwrap();
        let (mut b, _) = l.accept().unwrap();
        a.write_all(&h.bytes()).unwrap();
        a.write_all(b"stranger! padding to forty-one bytes.....")
            .unwrap();
        assert_eq!(Hello::read(&mut b).unwrap(), Some(h));
        assert_eq!(Hello::read(&mut b).unwrap(), None);
    }
}
