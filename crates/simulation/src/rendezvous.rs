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
//! both ways (`hello`), so a process started with other flags or another
//! file is a one-line error rather than a garbled run.
//!
//! Anyone may connect to a listening port, so what comes in is judged
//! before anything is said to it, all at once (the hellos are read
//! together, each with its own short deadline, so no connection holds up
//! another or the `--connect-timeout`): a connection that sends no hello
//! in time, bytes that are not a hello, a process index that does not
//! connect here, or a second process instance claiming an index already
//! taken (its nonce differs from the first's) is dropped with a warning
//! naming its source address, and nothing is sent to it. A hello from a
//! process started with other flags or another network is answered — so a
//! genuine peer learns why and fails with the reason — and dropped. A
//! taken process whose connection closes before the end is forgotten, so
//! it may come again. What this process connects to is a hostfile's
//! address, trusted as timely trusts it: an answer there that is not the
//! process expected is an error.
//!
//! While it waits longer than a second it says once, on stderr, for
//! whom; past the deadline it fails naming the processes that did not
//! connect.

use crate::cluster::{ClusterOptions, EngineConfig, EngineError};
use crate::hello::{nonce, Hello, Kind, HELLO_LEN};
use std::collections::{BTreeMap, VecDeque};
use std::io::{self, Read, Write};
use std::net::{IpAddr, SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};
use tranche_cli::text::bare;

/// The TCP streams of one process to the others, indexed by the other
/// process.
pub struct Streams {
    /// Timely's data connections (none to itself).
    pub data: Vec<Option<TcpStream>>,
    /// Control connections: on process 0, from every other process; on
    /// the others, to process 0 only.
    pub control: Vec<Option<TcpStream>>,
}

impl Streams {
    fn slot(&mut self, kind: Kind, j: usize) -> &mut Option<TcpStream> {
        match kind {
            Kind::Data => &mut self.data[j],
            Kind::Control => &mut self.control[j],
        }
    }
}

/// How long a connection may take to say its hello, either way.
const HELLO_TIMEOUT: Duration = Duration::from_secs(2);
/// The most connections waiting for their hello at once; past it the
/// oldest is dropped.
const MAX_PENDING: usize = 64;
/// How often the listening side looks at its connections.
const POLL: Duration = Duration::from_millis(10);
/// How long a connecting side waits between tries.
const RETRY: Duration = Duration::from_millis(50);
/// The most one connection attempt may take.
const CONNECT_TIMEOUT: Duration = Duration::from_millis(200);

/// Connections of a kind to or from processes.
type Wants = Vec<(Kind, usize)>;

/// The connections this process makes (to lower indices) and takes.
fn wanted(me: usize, n: usize) -> (Wants, Wants) {
    let mut calls: Vec<_> = (0..me).map(|j| (Kind::Data, j)).collect();
    let mut answers: Vec<_> = (me + 1..n).map(|j| (Kind::Data, j)).collect();
    if me > 0 {
        calls.push((Kind::Control, 0));
    } else {
        answers.extend((1..n).map(|j| (Kind::Control, j)));
    }
    (calls, answers)
}

/// `process 1 (host:port)` or `processes 1 (a), 2 (b)`.
fn name(hosts: &[String], ps: &[usize]) -> String {
    let each: Vec<String> = ps
        .iter()
        .map(|&j| format!("{j} ({})", hosts.get(j).map_or("?".to_owned(), |h| bare(h))))
        .collect();
    let noun = if ps.len() == 1 {
        "process"
    } else {
        "processes"
    };
    format!("{noun} {}", each.join(", "))
}

/// One warning per source and reason; the repeats counted, told at the end.
#[derive(Default)]
struct Warnings {
    seen: BTreeMap<(IpAddr, &'static str), u64>,
}

impl Warnings {
    fn dropped(&mut self, from: SocketAddr, reason: &'static str, why: &str) {
        let n = self.seen.entry((from.ip(), reason)).or_default();
        *n += 1;
        if *n == 1 {
            log::warn!("rendezvous: dropped a connection from {from}: {why}");
        }
    }

    fn finish(&self) {
        let more: u64 = self.seen.values().map(|n| n - 1).sum();
        if more > 0 {
            log::warn!("rendezvous: {more} more connection(s) dropped for a reason already told");
        }
    }
}

/// A connection taken in that waits for its hello.
struct Pending {
    stream: TcpStream,
    from: SocketAddr,
    got: [u8; HELLO_LEN],
    len: usize,
    since: Instant,
}

/// What the listening side makes of a complete hello ([`judge`]).
#[derive(Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Process `index`'s connection of `kind`: answered and kept.
    Take,
    /// A process that cannot run with this one: answered (so it can say
    /// why) and dropped.
    Tell(String),
    /// Not for this process: dropped unanswered.
    Drop(&'static str, String),
}

/// The listening side: what comes in on this process's address.
struct Door {
    listener: TcpListener,
    me: usize,
    processes: usize,
    /// This process's hello (its kind set per answer).
    mine: Hello,
    pending: VecDeque<Pending>,
    /// Per process: the nonce of the instance taken, and whence.
    taken: Vec<Option<(u64, SocketAddr)>>,
    warnings: Warnings,
}

/// Whether process `j` connects with `kind` to process `me` of
/// `processes`.
fn expects(me: usize, processes: usize, kind: Kind, j: u64) -> bool {
    let n = processes as u64;
    match kind {
        Kind::Data => j > me as u64 && j < n,
        Kind::Control => me == 0 && j > 0 && j < n,
    }
}

/// What the listening side of process `mine.index`, saying `mine`, makes
/// of a whole hello `theirs`, `taken` holding per process the nonce of the
/// instance taken and whence. Pure, so that the fuzz target reads hellos
/// without a socket.
pub fn judge(mine: &Hello, taken: &[Option<(u64, SocketAddr)>], theirs: &Hello) -> Verdict {
    let j = theirs.index;
    if j >= theirs.processes {
        // Not even a process of its own run: garbage.
        return Verdict::Drop(
            "index",
            format!(
                "it claims to be process {j} of {} processes",
                theirs.processes
            ),
        );
    }
    if let Some(what) = mine.mismatch(theirs) {
        return Verdict::Tell(format!("it claims to be process {j} and {what}; told so"));
    }
    let (me, processes) = (mine.index as usize, mine.processes as usize);
    if !expects(me, processes, theirs.kind, j) {
        return Verdict::Drop(
            "index",
            format!(
                "it claims to be process {j}, whose {} connection is not to process {me}",
                theirs.kind
            ),
        );
    }
    match taken.get(j as usize).copied().flatten() {
        Some((nonce, first)) if nonce != theirs.nonce => Verdict::Drop(
            "taken",
            format!("it claims to be process {j}, and process {j} from {first} came first"),
        ),
        _ => Verdict::Take,
    }
}

impl Door {
    /// Whether process `j` connects here with `kind`.
    fn expects(&self, kind: Kind, j: u64) -> bool {
        expects(self.me, self.processes, kind, j)
    }

    /// Take in what came, judge what said its hello, forget what took too
    /// long or closed.
    fn poll(&mut self, streams: &mut Streams) {
        // Until nothing waits (or a connection failed in the queue, reset
        // before it was taken: the rest is looked at next time).
        while let Ok((stream, from)) = self.listener.accept() {
            if stream.set_nonblocking(true).is_err() {
                continue;
            }
            self.pending.push_back(Pending {
                stream,
                from,
                got: [0; HELLO_LEN],
                len: 0,
                since: Instant::now(),
            });
            if self.pending.len() > MAX_PENDING {
                let old = self.pending.pop_front().expect("over the bound");
                self.warnings.dropped(
                    old.from,
                    "crowd",
                    &format!("more than {MAX_PENDING} connections wait for their hello"),
                );
            }
        }
        let mut still = VecDeque::new();
        while let Some(mut p) = self.pending.pop_front() {
            match p.stream.read(&mut p.got[p.len..]) {
                Ok(0) => self
                    .warnings
                    .dropped(p.from, "closed", "it closed before its hello"),
                Ok(k) => {
                    p.len += k;
                    // Garbage is told by its first bytes.
                    match Hello::read(&p.got[..p.len]) {
                        Err(e) => self.warnings.dropped(p.from, e.key(), &e.to_string()),
                        Ok(Some(theirs)) => self.hello(p, theirs, streams),
                        Ok(None) => still.push_back(p),
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    if p.since.elapsed() >= HELLO_TIMEOUT {
                        let why =
                            format!("it sent no hello within {} s", HELLO_TIMEOUT.as_secs_f64());
                        self.warnings.dropped(p.from, "silent", &why);
                    } else {
                        still.push_back(p);
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => still.push_back(p),
                Err(e) => {
                    self.warnings
                        .dropped(p.from, "error", &format!("reading its hello: {e}"))
                }
            }
        }
        self.pending = still;
        self.forget_the_gone(streams);
    }

    /// A complete hello `theirs` from `p`.
    fn hello(&mut self, p: Pending, theirs: Hello, streams: &mut Streams) {
        let verdict = judge(&self.mine, &self.taken, &theirs);
        if let Verdict::Drop(reason, why) = &verdict {
            // A stranger's bytes get nothing back.
            return self.warnings.dropped(p.from, reason, why);
        }
        let answer = Hello {
            kind: theirs.kind,
            ..self.mine
        };
        let mut stream = p.stream;
        // 49 bytes on a fresh connection: written at once, or the
        // connection is no good.
        let answered = stream
            .set_nonblocking(false)
            .and_then(|()| stream.set_write_timeout(Some(HELLO_TIMEOUT)))
            .and_then(|()| stream.write_all(&answer.bytes()))
            .and_then(|()| stream.set_nonblocking(true));
        match (verdict, answered) {
            (Verdict::Tell(why), _) => self.warnings.dropped(p.from, "mismatch", &why),
            (_, Err(e)) => {
                let why = format!("answering its hello: {e}");
                self.warnings.dropped(p.from, "error", &why);
            }
            (_, Ok(())) => {
                let j = theirs.index as usize;
                self.taken[j] = Some((theirs.nonce, p.from));
                // The same instance again (it gave up on the first
                // answer): the new connection is the one it uses.
                *streams.slot(theirs.kind, j) = Some(stream);
            }
        }
    }

    /// A taken process whose connection closed (it failed, or it was
    /// not the process it said) is forgotten: it may come again.
    fn forget_the_gone(&mut self, streams: &mut Streams) {
        for j in 0..self.processes {
            let Some((_, from)) = self.taken[j] else {
                continue;
            };
            let gone = [Kind::Data, Kind::Control].into_iter().any(|kind| {
                self.expects(kind, j as u64) && streams.slot(kind, j).as_ref().is_some_and(closed)
            });
            if gone {
                log::warn!(
                    "rendezvous: process {j} (from {from}) closed its connection before the \
                     others connected; waiting for it again"
                );
                self.taken[j] = None;
                for kind in [Kind::Data, Kind::Control] {
                    if self.expects(kind, j as u64) {
                        *streams.slot(kind, j) = None;
                    }
                }
            }
        }
    }
}

/// Whether the other end of `s` (non-blocking) has closed it.
fn closed(s: &TcpStream) -> bool {
    match s.peek(&mut [0u8; 1]) {
        Ok(k) => k == 0,
        Err(e) => !matches!(
            e.kind(),
            io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted
        ),
    }
}

/// What a connecting side needs to reach process `j`.
struct Call {
    kind: Kind,
    j: usize,
    addr: SocketAddr,
    host: String,
    mine: Hello,
}

type Called = Result<(Kind, usize, TcpStream), EngineError>;

impl Call {
    /// Try until connected, the deadline, or `stop`; say the outcome on
    /// `done` (nothing at the deadline: the waiting side names `j`).
    fn run(self, deadline: Instant, stop: &AtomicBool, done: &mpsc::Sender<Called>) {
        while !stop.load(Ordering::Relaxed) {
            let Some(left) = deadline
                .checked_duration_since(Instant::now())
                .filter(|d| !d.is_zero())
            else {
                return;
            };
            match self.once(left) {
                Ok(Some(s)) => {
                    let _ = done.send(Ok((self.kind, self.j, s)));
                    return;
                }
                Ok(None) => std::thread::sleep(RETRY.min(left)),
                Err(e) => {
                    let _ = done.send(Err(e));
                    return;
                }
            }
        }
    }

    /// One try: `Ok(None)` to try again (nobody there yet, no answer in
    /// time, or dropped).
    fn once(&self, left: Duration) -> Result<Option<TcpStream>, EngineError> {
        let Ok(mut s) = TcpStream::connect_timeout(&self.addr, CONNECT_TIMEOUT.min(left)) else {
            return Ok(None);
        };
        let mut got = [0u8; HELLO_LEN];
        let greeted = s
            .set_read_timeout(Some(HELLO_TIMEOUT.min(left)))
            .and_then(|()| s.write_all(&self.mine.bytes()))
            .and_then(|()| s.read_exact(&mut got));
        if greeted.is_err() {
            return Ok(None);
        }
        check_answer(&self.mine, self.j, &self.host, &got)?;
        Ok(Some(s))
    }
}

/// What the connecting side saying `mine` makes of the answer `got` of
/// the process it called, `j` at `host`: its own process and kind of
/// connection, started alike, or a one-line error. Pure, for the fuzz
/// target.
pub fn check_answer(
    mine: &Hello,
    j: usize,
    host: &str,
    got: &[u8; HELLO_LEN],
) -> Result<(), EngineError> {
    let stranger = || EngineError::Stranger {
        process: j,
        address: host.to_owned(),
    };
    let theirs = Hello::parse(got).map_err(|_| stranger())?;
    if let Some(what) = mine.mismatch(&theirs) {
        return Err(EngineError::Mismatch {
            process: j,
            address: host.to_owned(),
            what,
        });
    }
    if theirs.index != j as u64 || theirs.kind != mine.kind {
        return Err(stranger());
    }
    Ok(())
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

/// Stops the connecting threads when the rendezvous ends, either way.
struct StopOnDrop(Arc<AtomicBool>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// Connect this process to every other one of `engine` (several
/// processes, `engine.hosts` one per process), or fail naming whom it
/// waited for.
pub fn connect(
    engine: &EngineConfig,
    options: &ClusterOptions,
    fingerprint: u64,
) -> Result<Streams, EngineError> {
    let (me, n) = (engine.process, engine.processes);
    let addrs = (0..n)
        .map(|j| resolve(engine, j))
        .collect::<Result<Vec<_>, _>>()?;
    let mine = Hello {
        kind: Kind::Data,
        index: me as u64,
        processes: n as u64,
        threads: engine.threads as u64,
        fingerprint,
        nonce: nonce(),
    };
    let (calls, answers) = wanted(me, n);
    let mut door = if answers.is_empty() {
        None
    } else {
        let listener = TcpListener::bind(addrs[me])
            .and_then(|l| l.set_nonblocking(true).map(|()| l))
            .map_err(|e| EngineError::Listen {
                process: me,
                address: engine.hosts[me].clone(),
                cause: e.to_string(),
            })?;
        Some(Door {
            listener,
            me,
            processes: n,
            mine,
            pending: VecDeque::new(),
            taken: vec![None; n],
            warnings: Warnings::default(),
        })
    };
    let start = Instant::now();
    let deadline = start + options.connect_timeout;
    let stop = StopOnDrop(Arc::new(AtomicBool::new(false)));
    let (done, called) = mpsc::channel();
    for &(kind, j) in &calls {
        let call = Call {
            kind,
            j,
            addr: addrs[j],
            host: engine.hosts[j].clone(),
            mine: Hello { kind, ..mine },
        };
        let (stop, done) = (stop.0.clone(), done.clone());
        std::thread::Builder::new()
            .name(format!("rendezvous-{kind}-{j}"))
            .spawn(move || call.run(deadline, &stop, &done))
            .map_err(|e| EngineError::Timely(format!("starting a connecting thread: {e}")))?;
    }
    let mut streams = Streams {
        data: (0..n).map(|_| None).collect(),
        control: (0..n).map(|_| None).collect(),
    };
    let mut told = false;
    let outcome = loop {
        let mut failed = None;
        while let Ok(c) = called.try_recv() {
            match c {
                Ok((kind, j, s)) => *streams.slot(kind, j) = Some(s),
                Err(e) => failed = Some(e),
            }
        }
        if let Some(e) = failed {
            break Err(e);
        }
        if let Some(d) = door.as_mut() {
            d.poll(&mut streams);
        }
        let mut missing: Vec<usize> = calls
            .iter()
            .chain(&answers)
            .filter(|&&(kind, j)| streams.slot(kind, j).is_none())
            .map(|&(_, j)| j)
            .collect();
        missing.sort_unstable();
        missing.dedup();
        if missing.is_empty() {
            break Ok(());
        }
        let waited = start.elapsed();
        if waited >= options.connect_timeout {
            break Err(EngineError::NotConnected {
                missing: name(&engine.hosts, &missing),
                secs: options.connect_timeout.as_secs_f64(),
            });
        }
        if options.tell_waiting && !told && waited >= Duration::from_secs(1) {
            told = true;
            eprintln!(
                "process {me}: waiting for {} to connect (up to {} s)",
                name(&engine.hosts, &missing),
                options.connect_timeout.as_secs_f64()
            );
        }
        std::thread::sleep(POLL);
    };
    if let Some(d) = &door {
        d.warnings.finish();
    }
    outcome?;
    for s in streams.data.iter().chain(&streams.control).flatten() {
        // Timely's threads block on reads: no deadline left behind.
        s.set_nonblocking(false)
            .and_then(|()| s.set_read_timeout(None))
            .and_then(|()| s.set_write_timeout(None))
            .and_then(|()| s.set_nodelay(true))
            .map_err(|e| EngineError::Timely(e.to_string()))?;
    }
    Ok(streams)
}
