//! Where a run's workers are: threads per process, processes, this
//! process's index and every process's address (`EngineConfig`, with the
//! fixed bounds every process checks alike), how a several-process run connects
//! (`ClusterOptions`), and every way the engine fails (`EngineError`). Below `engine`, `rendezvous` and `gather`, which all
//! use it, so none of them depends on another for these.

use std::time::Duration;
use tranche_cli::text::{bare, code};

/// The most worker threads per process. Timely gives every worker a
/// channel to every other one, so a worker's memory grows with the
/// workers in all (256 threads of one process: 120 MiB and 7 s to set up
/// a 20-validator run on 2 cores); the bound is fixed, not the host's
/// core count, because every process must accept the same `--threads`.
pub const MAX_THREADS: usize = 256;

/// The most processes of one run (each is a line of the hostfile, which
/// `tranche_config::hostfile` reads).
pub use tranche_records::limits::MAX_PROCESSES;

/// The most workers in all (threads × processes): a simulation has at
/// most 2 000 validators (`MAX_NETWORK_VALIDATORS`), one worker each at
/// most is useful.
pub const MAX_WORKERS: usize = 2048;

/// Where the workers run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineConfig {
    /// Worker threads per process.
    pub threads: usize,
    /// Processes in all.
    pub processes: usize,
    /// This process's index.
    pub process: usize,
    /// `host:port` of every process, in process order (required when
    /// there are several).
    pub hosts: Vec<String>,
}

impl Default for EngineConfig {
    fn default() -> Self {
        EngineConfig {
            threads: 1,
            processes: 1,
            process: 0,
            hosts: Vec::new(),
        }
    }
}

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

/// An engine configuration that cannot run, or a run that failed.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum EngineError {
    #[error("--threads must be 1..={MAX_THREADS}, got {0}")]
    Threads(usize),
    #[error("--processes must be 1..={MAX_PROCESSES}, got {0}")]
    Processes(usize),
    #[error(
        "--threads {threads} x --processes {processes} is {} workers; at most {MAX_WORKERS}",
        threads * processes
    )]
    Workers { threads: usize, processes: usize },
    #[error("--process {process} is not below --processes {processes}")]
    ProcessOutOfRange { process: usize, processes: usize },
    #[error("{processes} processes need {processes} addresses, got {hosts}")]
    Hosts { processes: usize, hosts: usize },
    #[error("timely: {0}")]
    Timely(String),
    #[error("{missing} did not connect within {secs} s")]
    NotConnected { missing: String, secs: f64 },
    #[error("process {process} cannot listen on {}: {cause}", bare(address))]
    Listen {
        process: usize,
        address: String,
        cause: String,
    },
    #[error("process {process}'s address {}: {cause}", code(address))]
    Address {
        process: usize,
        address: String,
        cause: String,
    },
    #[error("process {process} ({}) {what}", bare(address))]
    Mismatch {
        process: usize,
        address: String,
        what: String,
    },
    #[error(
        "{}, the address of process {process}, answered but not as that tranche process",
        bare(address)
    )]
    Stranger { process: usize, address: String },
    #[error("process {process} ({}) {cause}", bare(address))]
    Lost {
        process: usize,
        address: String,
        cause: String,
    },
    #[error("a worker failed: {0}")]
    Worker(String),
}

impl EngineConfig {
    /// The bounds every process checks alike: threads, processes, this
    /// process's index, one address per process.
    pub fn check(&self) -> Result<(), EngineError> {
        if !(1..=MAX_THREADS).contains(&self.threads) {
            return Err(EngineError::Threads(self.threads));
        }
        if !(1..=MAX_PROCESSES).contains(&self.processes) {
            return Err(EngineError::Processes(self.processes));
        }
        if self.threads * self.processes > MAX_WORKERS {
            return Err(EngineError::Workers {
                threads: self.threads,
                processes: self.processes,
            });
        }
        if self.process >= self.processes {
            return Err(EngineError::ProcessOutOfRange {
                process: self.process,
                processes: self.processes,
            });
        }
        if self.processes > 1 && self.hosts.len() != self.processes {
            return Err(EngineError::Hosts {
                processes: self.processes,
                hosts: self.hosts.len(),
            });
        }
        Ok(())
    }

    /// Timely's configuration, built here rather than parsed from argv.
    pub fn timely(&self) -> Result<timely::Config, EngineError> {
        self.check()?;
        if self.processes == 1 {
            return Ok(timely::Config::process(self.threads));
        }
        Ok(timely::Config {
            communication: timely::CommunicationConfig::Cluster {
                threads: self.threads,
                process: self.process,
                addresses: self.hosts.clone(),
                report: false,
                zerocopy: false,
            },
            worker: timely::WorkerConfig::default(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bound_is_one_line_naming_the_flag() {
        let at = |threads, processes, process| EngineConfig {
            threads,
            processes,
            process,
            hosts: (0..processes).map(|i| format!("h:{}", i + 1)).collect(),
        };
        assert!(at(1, 1, 0).check().is_ok());
        assert!(at(MAX_THREADS, 1, 0).check().is_ok());
        assert!(at(32, MAX_PROCESSES, 0).check().is_ok());
        let cases = [
            (at(0, 1, 0), "--threads must be 1..=256, got 0"),
            (
                at(usize::MAX, 1, 0),
                "--threads must be 1..=256, got 18446744073709551615",
            ),
            (at(1, 0, 0), "--processes must be 1..=64, got 0"),
            (at(1, 65, 0), "--processes must be 1..=64, got 65"),
            (
                at(256, 9, 0),
                "--threads 256 x --processes 9 is 2304 workers; at most 2048",
            ),
            (at(1, 2, 5), "--process 5 is not below --processes 2"),
        ];
        for (engine, want) in cases {
            assert_eq!(engine.check().unwrap_err().to_string(), want);
        }
        let mut no_hosts = at(1, 2, 0);
        no_hosts.hosts.pop();
        assert_eq!(
            no_hosts.timely().unwrap_err(),
            EngineError::Hosts {
                processes: 2,
                hosts: 1
            }
        );
    }

    #[test]
    fn an_address_from_a_hostfile_is_shown_escaped_and_cut() {
        let address = format!("\u{1b}]0;pwn\u{7}{}:2101", "A".repeat(1_000_000));
        let errors = [
            EngineError::Listen {
                process: 0,
                address: address.clone(),
                cause: "c".into(),
            },
            EngineError::Address {
                process: 0,
                address: address.clone(),
                cause: "c".into(),
            },
            EngineError::Mismatch {
                process: 0,
                address: address.clone(),
                what: "w".into(),
            },
            EngineError::Stranger {
                process: 0,
                address: address.clone(),
            },
            EngineError::Lost {
                process: 0,
                address: address.clone(),
                cause: "c".into(),
            },
        ];
        for e in errors {
            let line = e.to_string();
            assert!(line.len() < 200, "{}", line.len());
            assert!(
                !line.contains('\u{1b}') && !line.contains('\u{7}'),
                "{line}"
            );
            assert!(line.contains("\\u{1b}]0;pwn\\u{7}AAA"), "{line}");
            assert!(line.contains("(1 000 013 bytes)"), "{line}");
        }
    }
}
