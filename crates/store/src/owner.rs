//! The owner's marker: what a store writes when it creates a database, so
//! that it — and `clear` — can tell a database this tool made from
//! anything else a user keeps at a path. A marker names the store kind,
//! the layout version (`tranche_voting::SCHEMA_VERSION`) and the
//! configuration of the run it belongs to; ParityDB's also lists the
//! table files the database has grown, so that one deleted is found.
//!
//! redb keeps the marker in its `meta` table (`OWNER_KEY`); ParityDB keeps
//! it twice: in the column (`OWNER_KEY`, lost with the tables) and in the
//! file `MARKER_FILE` of the folder (read before ParityDB touches
//! anything, and kept when the tables are lost).

use std::collections::BTreeSet;
use std::fmt;
use tranche_voting::SCHEMA_VERSION;

/// The first line of every marker.
pub const MAGIC: &str = "tranche approval database";

/// The marker's file in a ParityDB folder.
pub const MARKER_FILE: &str = "tranche-owner";

/// redb's file header starts with these bytes (`MAGICNUMBER` in
/// cberner/redb `src/tree_store/page_store/header.rs`).
pub const REDB_MAGIC: [u8; 9] = [b'r', b'e', b'd', b'b', 0x1A, 0x0A, 0xA9, 0x0D, 0x0A];

/// Which store made a database.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Redb,
    ParityDb,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Redb => crate::REDB,
            Kind::ParityDb => crate::PARITY_DB,
        }
    }

    fn parse(s: &str) -> Option<Kind> {
        [Kind::Redb, Kind::ParityDb]
            .into_iter()
            .find(|k| k.name() == s)
    }
}

/// What a store records about the database it made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Marker {
    pub kind: Kind,
    pub schema: u32,
    pub config: String,
    /// ParityDB: the table files the database holds (empty for redb).
    pub files: BTreeSet<String>,
}

/// `s` on one line: control characters become spaces.
pub fn one_line(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// A path as messages show it: control characters escaped (the safe-text
/// rule of the commands; a path is not cut, as it names what to fix).
pub fn shown(path: &std::path::Path) -> String {
    path.display()
        .to_string()
        .chars()
        .map(|c| {
            if c.is_control() {
                c.escape_default().collect()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// At most 80 bytes of `s` (at a character boundary), for messages.
pub(crate) fn short(s: &str) -> String {
    let s = one_line(s);
    if s.len() <= 80 {
        return s;
    }
    let mut end = 80;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} bytes)", &s[..end], s.len())
}

impl Marker {
    /// The marker of a database made now for `config`.
    pub fn new(kind: Kind, config: &str) -> Self {
        Marker {
            kind,
            schema: SCHEMA_VERSION,
            config: one_line(config),
            files: BTreeSet::new(),
        }
    }

    pub fn encode(&self) -> Vec<u8> {
        let mut s = format!(
            "{MAGIC}\nkind {}\nschema {}\nconfig {}\n",
            self.kind.name(),
            self.schema,
            self.config
        );
        for f in &self.files {
            s.push_str(&format!("file {f}\n"));
        }
        s.into_bytes()
    }

    /// The marker in `bytes`; `None` where they are not a marker.
    pub fn decode(bytes: &[u8]) -> Option<Marker> {
        let text = std::str::from_utf8(bytes).ok()?;
        let mut lines = text.lines();
        if lines.next()? != MAGIC {
            return None;
        }
        let kind = Kind::parse(lines.next()?.strip_prefix("kind ")?)?;
        let schema = lines.next()?.strip_prefix("schema ")?.parse().ok()?;
        let config = lines.next()?.strip_prefix("config ")?.to_owned();
        let mut files = BTreeSet::new();
        for line in lines {
            files.insert(line.strip_prefix("file ")?.to_owned());
        }
        Some(Marker {
            kind,
            schema,
            config,
            files,
        })
    }

    /// Whether a database with this marker is one a store of `kind` may
    /// open for `config` (`None`: any); the reason, to end "it …",
    /// otherwise.
    pub fn check(&self, kind: Kind, config: Option<&str>) -> Result<(), String> {
        if self.kind != kind {
            return Err(format!(
                "it is a {} database, not a {} one",
                self.kind.name(),
                kind.name()
            ));
        }
        if self.schema != SCHEMA_VERSION {
            return Err(format!(
                "it holds layout version {}, this node reads version {SCHEMA_VERSION}",
                self.schema
            ));
        }
        let Some(config) = config else {
            return Ok(());
        };
        if self.config != one_line(config) {
            return Err(format!(
                "it was made for another configuration ({}; this run: {})",
                short(&self.config),
                short(config)
            ));
        }
        Ok(())
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What the first bytes of a file at a redb database's path say.
pub fn redb_header(path: &std::path::Path) -> Result<(), String> {
    use std::io::Read;
    let mut head = [0u8; REDB_MAGIC.len()];
    let mut f = std::fs::File::open(path).map_err(|e| format!("cannot read it: {e}"))?;
    let mut got = 0;
    while got < head.len() {
        match f.read(&mut head[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) => return Err(format!("cannot read it: {e}")),
        }
    }
    if got < head.len() || head != REDB_MAGIC {
        return Err(format!(
            "it is not a redb database (its first {got} bytes are not redb's header)"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_marker_round_trips() {
        let mut m = Marker::new(Kind::ParityDb, "a\nrun");
        m.files.insert("table_00_01".into());
        let back = Marker::decode(&m.encode()).unwrap();
        assert_eq!(back, m);
        assert_eq!(back.config, "a run");
        assert!(back.check(Kind::ParityDb, Some("a\nrun")).is_ok());
    }

    #[test]
    fn anything_else_is_not_a_marker() {
        for bytes in [
            &b""[..],
            b"notes\n",
            b"tranche approval database\nkind sqlite\nschema 2\nconfig \n",
            b"tranche approval database\nkind redb\nschema x\nconfig \n",
            b"tranche approval database\nkind redb\nschema 2\nconfig \nthesis\n",
            &[0xff, 0xfe],
        ] {
            assert_eq!(Marker::decode(bytes), None, "{bytes:?}");
        }
    }

    #[test]
    fn another_kind_version_or_configuration_is_refused() {
        let m = Marker::new(Kind::Redb, "seed 0");
        assert!(m
            .check(Kind::ParityDb, Some("seed 0"))
            .unwrap_err()
            .contains("redb database"));
        assert!(m
            .check(Kind::Redb, Some("seed 1"))
            .unwrap_err()
            .contains("another configuration"));
        let old = Marker { schema: 1, ..m };
        assert!(old
            .check(Kind::Redb, None)
            .unwrap_err()
            .contains("layout version 1"));
    }

    #[test]
    fn a_path_is_shown_with_its_control_characters_escaped() {
        let p = std::path::Path::new("d/\u{1b}]0;pwn\u{7}/approvals.redb");
        assert_eq!(shown(p), "d/\\u{1b}]0;pwn\\u{7}/approvals.redb");
    }

    #[test]
    fn long_values_are_cut_in_messages() {
        let s = short(&"é".repeat(100));
        assert!(s.ends_with("(200 bytes)"), "{s}");
        assert!(s.len() < 100);
    }
}
