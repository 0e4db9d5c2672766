//! The hostfile of a several-process `tranche network` run
//! (`--hostfile F`): one `host:port` line a process, read and checked here
//! as every other file the commands read (`input`), its refusals one line
//! by the safe-text rule (`text`).

use std::path::Path;
use tranche_cli::text::code;
use tranche_records::limits::MAX_PROCESSES;

/// The largest hostfile read (64 lines of at most 260 bytes fit many times).
pub const MAX_HOSTFILE_BYTES: u64 = 1 << 20;

/// The addresses of the hostfile at `path`, one a process; why not, in
/// one line (the path is the caller's to name).
pub fn read(path: &Path) -> Result<Vec<String>, String> {
    let text =
        tranche_cli::input::read_text(path, MAX_HOSTFILE_BYTES).map_err(|e| e.to_string())?;
    parse(&text)
}

/// The longest host name (a DNS name's bound).
pub const MAX_HOST_BYTES: usize = 253;

/// The `host:port` lines of a hostfile's `text` (blank lines and `#`
/// comments skipped): each a host (at most [`MAX_HOST_BYTES`], no space or
/// control character) and a port from 1 to 65535, no address twice, at
/// least one and at most [`MAX_PROCESSES`]. A refusal is one line naming
/// the line, its text escaped and cut (`text::code`).
pub fn parse(text: &str) -> Result<Vec<String>, String> {
    let mut hosts: Vec<String> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let n = i + 1;
        if hosts.len() == MAX_PROCESSES {
            return Err(format!(
                "line {n}: more than {MAX_PROCESSES} addresses, the most processes a run has"
            ));
        }
        if line.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(format!(
                "line {n}: {} is not host:port (a space or control character inside)",
                code(line)
            ));
        }
        let Some((host, port)) = line.rsplit_once(':') else {
            return Err(format!(
                "line {n}: {} is not host:port (no port)",
                code(line)
            ));
        };
        if host.is_empty() {
            return Err(format!("line {n}: {} has no host", code(line)));
        }
        if host.len() > MAX_HOST_BYTES {
            return Err(format!(
                "line {n}: {} is not host:port (a host name is at most {MAX_HOST_BYTES} bytes)",
                code(line)
            ));
        }
        if port.is_empty() {
            return Err(format!("line {n}: {} has no port", code(line)));
        }
        match port.parse::<u16>() {
            Ok(p) if p > 0 => {}
            _ => {
                return Err(format!(
                    "line {n}: {} in {} is not a port (1 to 65535)",
                    code(port),
                    code(line)
                ))
            }
        }
        if let Some(k) = hosts.iter().position(|h| h == line) {
            return Err(format!(
                "line {n}: {} is already process {k}'s address",
                code(line)
            ));
        }
        hosts.push(line.to_owned());
    }
    if hosts.is_empty() {
        return Err("no host:port line".to_owned());
    }
    Ok(hosts)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Found writing the `hostfile` fuzz target: a megabyte of distinct
    /// lines took quadratic time to check for repeats, and a control
    /// character in a host was accepted (and reached the terminal in the
    /// later messages naming the process).
    #[test]
    fn a_hostfile_is_bounded_and_its_hosts_are_plain() {
        let many: String = (1..=65).map(|p| format!("h:{p}\n")).collect();
        assert_eq!(
            parse(&many).unwrap_err(),
            "line 65: more than 64 addresses, the most processes a run has"
        );
        assert_eq!(parse(&many[..many.len() - 5]).unwrap().len(), 64);
        assert_eq!(
            parse("a:1\n\u{1b}]0;pwn\u{7}:2\n").unwrap_err(),
            "line 2: `\\u{1b}]0;pwn\\u{7}:2` is not host:port (a space or control character \
             inside)"
        );
        assert!(parse("a b:1\n").unwrap_err().contains("a space"));
    }
}
