//! Every process's cost figures, gathered by process 0 at the end of a
//! several-process run on the control connections of `rendezvous`: each
//! other process, once its dataflow is done, sends one line (CPU and wall
//! seconds, checks verified and reused, moments) and closes; process 0
//! reads one line from each, with a deadline. A process that closes
//! without its line went away before the end.

use crate::cluster::EngineError;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::time::Duration;
use tranche_records::cost::ProcessCost;

/// How long process 0 waits for each other process's figures once its
/// own run is done (the others finish within moments of it).
pub const GATHER_TIMEOUT: Duration = Duration::from_secs(30);

/// The control connections of one process (none for a single process).
#[derive(Default)]
pub struct ControlStreams {
    /// By process index; see `rendezvous::Streams::control`.
    pub streams: Vec<Option<TcpStream>>,
    /// Every process's `host:port`.
    pub hosts: Vec<String>,
}

fn line_of(c: &ProcessCost) -> String {
    // `{}` of an f64 reads back to the same value.
    format!(
        "cost {} {} {} {} {} {}\n",
        c.cpu_s, c.wall_s, c.verified, c.reused, c.moments, c.peak_rss_bytes
    )
}

fn parse(process: usize, line: &str) -> Option<ProcessCost> {
    let mut w = line.trim_end().strip_prefix("cost ")?.split(' ');
    let seconds = |w: Option<&str>| w?.parse().ok().filter(|s: &f64| s.is_finite() && *s >= 0.0);
    let c = ProcessCost {
        process,
        cpu_s: seconds(w.next())?,
        wall_s: seconds(w.next())?,
        verified: w.next()?.parse().ok()?,
        reused: w.next()?.parse().ok()?,
        moments: w.next()?.parse().ok()?,
        peak_rss_bytes: w.next()?.parse().ok()?,
    };
    w.next().is_none().then_some(c)
}

/// Process `process`'s cost figures in `line`, the line it sent (at most
/// 4 096 bytes): six figures, the seconds finite and not negative; or
/// what it sent instead, escaped and cut (`text::code`). Pure, for the
/// fuzz target.
pub fn read_cost_line(process: usize, line: &str) -> Result<ProcessCost, String> {
    parse(process, line).ok_or_else(|| {
        let sent = tranche_cli::text::code(line.trim());
        format!("sent {sent}, not cost figures")
    })
}

impl ControlStreams {
    fn lost(&self, process: usize, cause: impl Into<String>) -> EngineError {
        EngineError::Lost {
            process,
            address: self.hosts.get(process).cloned().unwrap_or_default(),
            cause: cause.into(),
        }
    }

    /// On process 0: every process's figures in process order, `own`
    /// first; on the others: `own` sent to process 0, and none.
    pub fn gather(self, own: ProcessCost) -> Result<Vec<ProcessCost>, EngineError> {
        if own.process != 0 {
            if let Some(Some(mut s)) = self.streams.first().map(|s| s.as_ref()) {
                s.write_all(line_of(&own).as_bytes())
                    .and_then(|()| s.flush())
                    .map_err(|e| {
                        self.lost(0, format!("went away before taking the cost figures ({e})"))
                    })?;
            }
            return Ok(Vec::new());
        }
        let mut all = vec![own];
        for (j, stream) in self.streams.iter().enumerate().skip(1) {
            let Some(s) = stream else {
                continue;
            };
            s.set_read_timeout(Some(GATHER_TIMEOUT))
                .map_err(|e| self.lost(j, format!("cannot be read ({e})")))?;
            let mut line = String::new();
            match BufReader::new(s).take_line(&mut line) {
                Ok(0) => return Err(self.lost(j, "went away before sending its cost figures")),
                Ok(_) => {}
                Err(e) => return Err(self.lost(j, format!("sent no cost figures ({e})"))),
            }
            let c = read_cost_line(j, &line).map_err(|e| self.lost(j, e))?;
            all.push(c);
        }
        Ok(all)
    }
}

/// `read_line` with a bound: a peer cannot make process 0 buffer much.
trait TakeLine {
    fn take_line(&mut self, line: &mut String) -> std::io::Result<usize>;
}

impl<R: std::io::Read> TakeLine for BufReader<R> {
    fn take_line(&mut self, line: &mut String) -> std::io::Result<usize> {
        use std::io::Read;
        self.by_ref().take(4096).read_line(line)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cost_line_reads_back_exactly() {
        let c = ProcessCost {
            process: 2,
            cpu_s: 0.1 + 0.2,
            wall_s: 1e-9,
            verified: 17,
            reused: 0,
            moments: u64::MAX,
            peak_rss_bytes: 3 << 40,
        };
        assert_eq!(parse(2, &line_of(&c)), Some(c));
        assert_eq!(parse(1, "cost 1 2 3 4 5\n"), None);
        assert_eq!(parse(1, "cost 1 2 3 4 5 6 7\n"), None);
        assert_eq!(parse(1, "hello\n"), None);
    }

    /// Found writing the `process_wire` fuzz target: a peer's line was
    /// echoed raw (4 096 bytes, escapes and all), and seconds of `NaN`,
    /// `inf` or below zero were taken as figures.
    #[test]
    fn a_line_that_is_not_figures_is_told_escaped_and_cut() {
        let e = read_cost_line(1, &format!("\u{1b}]0;pwn\u{7}{}\n", "A".repeat(4000))).unwrap_err();
        assert!(e.starts_with("sent `\\u{1b}]0;pwn\\u{7}AAA"), "{e}");
        assert!(
            e.ends_with(" bytes), not cost figures") && e.len() < 200,
            "{e}"
        );
        for bad in ["NaN 1", "inf 1", "-1 1", "1 -0.5"] {
            assert!(
                read_cost_line(1, &format!("cost {bad} 3 4 5 6\n")).is_err(),
                "{bad}"
            );
        }
        assert!(read_cost_line(1, "cost 0 0 3 4 5 6\n").is_ok());
    }

    #[test]
    fn process_0_gathers_each_line_and_names_a_silent_peer() {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = l.local_addr().unwrap();
        let hosts = vec!["a:1".to_owned(), "b:2".to_owned(), "c:3".to_owned()];
        let one = TcpStream::connect(addr).unwrap();
        let (one_at_0, _) = l.accept().unwrap();
        let two = TcpStream::connect(addr).unwrap();
        let (two_at_0, _) = l.accept().unwrap();
        let cost = |process| ProcessCost {
            process,
            cpu_s: process as f64,
            ..ProcessCost::default()
        };
        for (p, s) in [(1, one), (2, two)] {
            ControlStreams {
                streams: vec![Some(s), None, None],
                hosts: hosts.clone(),
            }
            .gather(cost(p))
            .unwrap();
        }
        let all = ControlStreams {
            streams: vec![None, Some(one_at_0), Some(two_at_0)],
            hosts: hosts.clone(),
        }
        .gather(cost(0))
        .unwrap();
        assert_eq!(all, vec![cost(0), cost(1), cost(2)]);

        // Process 1 closes without its line: named.
        drop(TcpStream::connect(addr).unwrap());
        let (gone, _) = l.accept().unwrap();
        let e = ControlStreams {
            streams: vec![None, Some(gone)],
            hosts,
        }
        .gather(cost(0))
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "process 1 (b:2) went away before sending its cost figures"
        );
    }
}
