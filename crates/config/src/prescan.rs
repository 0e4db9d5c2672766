//! A linear pre-scan of a YAML input (test sequence, `!ApprovalNetwork`,
//! `!ApprovalSweep`, cost table) that refuses, before the YAML parser
//! sees the text, what would cost the parser time or memory far beyond the
//! file's size: deep nesting (the parser's time grows with the square of
//! the depth: a 400 KB file of `[[[[…` took 30 s), too many values (the
//! parser keeps an event of about a hundred bytes for each, so a 40 MB
//! `route: [1,1,1,…]` took 2.4 GB) and one value longer than any input
//! needs. No input nests more than a handful of levels or holds more than
//! a few hundred values (see `examples/`, upstream
//! `polkadot/node/subsystem-bench/examples/*.yaml`), so the bounds leave
//! room for far larger files than any real one.
//!
//! # What is counted
//!
//! The depth at a point of the file is the sum of
//!
//! * the open flow collections (`[` and `{` not yet closed by `]` or `}`),
//! * the open block levels: the indentation columns of the enclosing lines
//!   (a stack popped when a line is indented less), and
//! * the block-sequence dashes that open a line (`- - - x` is three levels).
//!
//! The values are counted as the lines that hold something, the
//! block-sequence dashes, the flow brackets and commas, and the colons
//! that end a key: at least as many as the parser's nodes. A value's
//! length is the bytes between two of these marks (a quoted or block
//! scalar's over all its lines).
//!
//! Brackets inside quoted scalars (`'…'`, `"…"`, which may span lines) and
//! comments (`#` at the start of a line or after a space) are not counted,
//! nor is anything inside a block scalar (`|` or `>` ending a line, up to
//! the next line indented no deeper than the line that opened it). The
//! count over-estimates YAML's own depth at worst (a dash and the key after
//! it are two levels here, as are two indentation columns of one mapping), so
//! the bound errs on the side of refusing; [`MAX_DEPTH`] leaves room for
//! eight times the deepest real file.

/// The deepest nesting a test-sequence file may have, as counted above.
pub const MAX_DEPTH: usize = 64;

/// The most values a YAML input may hold, as counted above (and as built,
/// aliases expanded: `yaml::read`).
pub const MAX_VALUES: usize = 100_000;

/// The longest value (a key or a scalar) a YAML input may hold, bytes.
pub const MAX_VALUE_BYTES: usize = 64 << 10;

/// Which bound a file exceeds first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exceeds {
    /// Nesting deeper than [`MAX_DEPTH`].
    Depth,
    /// More than [`MAX_VALUES`] values.
    Values,
    /// A value longer than [`MAX_VALUE_BYTES`].
    Length,
}

/// Where a file first exceeds a bound: which, and the 1-based line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OutOfBounds {
    /// The bound exceeded.
    pub exceeds: Exceeds,
    /// The line at which it is first exceeded.
    pub line: usize,
}

impl std::fmt::Display for OutOfBounds {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        let line = self.line;
        match self.exceeds {
            Exceeds::Depth => write!(
                f,
                "nesting deeper than {MAX_DEPTH} levels at line {line} (brackets, indentation \
                 and dashes counted; no input file needs more)"
            ),
            Exceeds::Values => write!(
                f,
                "more than {MAX_VALUES} values by line {line} (no input file needs as many)"
            ),
            Exceeds::Length => write!(
                f,
                "a value longer than {MAX_VALUE_BYTES} bytes at line {line} (no input file \
                 needs one as long)"
            ),
        }
    }
}

/// Scans `text` once; `Err` at the first point beyond a bound.
pub fn check(text: &str) -> Result<(), OutOfBounds> {
    let mut scan = Scan::default();
    for (i, line) in text.lines().enumerate() {
        scan.line(line).map_err(|exceeds| OutOfBounds {
            exceeds,
            line: i + 1,
        })?;
    }
    Ok(())
}

/// The state carried from one line to the next.
#[derive(Default)]
struct Scan {
    /// Open flow collections.
    flow: usize,
    /// Indentation columns of the open block levels, increasing.
    indents: Vec<usize>,
    /// Inside a quoted scalar opened by this quote character.
    quote: Option<u8>,
    /// Inside a block scalar opened by a line of this indentation.
    block_scalar: Option<usize>,
    /// Values counted so far.
    values: usize,
    /// Bytes of the value being read.
    length: usize,
}

impl Scan {
    fn line(&mut self, line: &str) -> Result<(), Exceeds> {
        let bytes = line.as_bytes();
        let indent = bytes.iter().take_while(|&&b| b == b' ').count();
        let blank = indent == bytes.len() || bytes[indent] == b'#';
        if let Some(opener) = self.block_scalar {
            if blank || indent > opener {
                return self.grow(bytes.len() + 1);
            }
            self.block_scalar = None;
        }
        if blank && self.quote.is_none() {
            return Ok(());
        }
        if self.quote.is_none() {
            self.length = 0;
            self.value()?;
        }
        let mut at = 0;
        if self.quote.is_none() && self.flow == 0 {
            while self.indents.last().is_some_and(|&i| i > indent) {
                self.indents.pop();
            }
            if self.indents.last() != Some(&indent) {
                self.indents.push(indent);
                self.check()?;
            }
            at = indent;
            // Each leading block-sequence dash opens a level, closed by
            // the next line indented no deeper than the dash.
            while bytes.get(at) == Some(&b'-') && matches!(bytes.get(at + 1), None | Some(b' ')) {
                self.indents.push(at + 1);
                self.check()?;
                self.value()?;
                at += 1;
                while bytes.get(at) == Some(&b' ') {
                    at += 1;
                }
            }
        }
        self.rest(&bytes[at..], indent)
    }

    /// Flow brackets, quotes, comments and a block-scalar indicator in the
    /// rest of a line.
    fn rest(&mut self, bytes: &[u8], indent: usize) -> Result<(), Exceeds> {
        let mut prev = b' ';
        let mut i = 0;
        while i < bytes.len() {
            let b = bytes[i];
            self.grow(1)?;
            if let Some(q) = self.quote {
                if b == q {
                    if q == b'\'' && bytes.get(i + 1) == Some(&b'\'') {
                        i += 1; // '' escapes a quote
                    } else {
                        self.quote = None;
                    }
                } else if b == b'\\' && q == b'"' {
                    i += 1;
                }
            } else {
                match b {
                    b'#' if prev == b' ' || prev == b'\t' => break,
                    b'\'' | b'"' => self.quote = Some(b),
                    b'[' | b'{' => {
                        self.flow += 1;
                        self.check()?;
                        self.value()?;
                    }
                    b']' | b'}' => {
                        self.flow = self.flow.saturating_sub(1);
                        self.length = 0;
                    }
                    b',' => self.value()?,
                    b':' if matches!(bytes.get(i + 1), None | Some(b' ' | b'\t')) => {
                        self.value()?
                    }
                    _ => {}
                }
            }
            prev = b;
            i += 1;
        }
        if self.quote.is_none() && self.flow == 0 && opens_block_scalar(bytes) {
            self.block_scalar = Some(indent);
            self.length = 0;
        }
        if self.quote.is_some() {
            self.grow(1)?; // the line break, part of the quoted value
        }
        Ok(())
    }

    /// A value starts here.
    fn value(&mut self) -> Result<(), Exceeds> {
        self.length = 0;
        self.values += 1;
        if self.values > MAX_VALUES {
            Err(Exceeds::Values)
        } else {
            Ok(())
        }
    }

    /// The value being read is `n` bytes longer.
    fn grow(&mut self, n: usize) -> Result<(), Exceeds> {
        self.length += n;
        if self.length > MAX_VALUE_BYTES {
            Err(Exceeds::Length)
        } else {
            Ok(())
        }
    }

    fn depth(&self) -> usize {
        self.flow + self.indents.len()
    }

    fn check(&self) -> Result<(), Exceeds> {
        if self.depth() > MAX_DEPTH {
            Err(Exceeds::Depth)
        } else {
            Ok(())
        }
    }
}

/// Whether a line (outside quotes and flow collections) ends with a block
/// scalar indicator: `|` or `>`, with optional chomping and indentation
/// indicators, before an optional comment.
fn opens_block_scalar(bytes: &[u8]) -> bool {
    let text = std::str::from_utf8(bytes).unwrap_or("");
    let code = match text.find(" #") {
        Some(c) => &text[..c],
        None => text,
    };
    let last = code.trim_end().rsplit(' ').next().unwrap_or("");
    let mut chars = last.chars();
    matches!(chars.next(), Some('|' | '>'))
        && chars.all(|c| c == '+' || c == '-' || c.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn too_deep(line: usize) -> OutOfBounds {
        OutOfBounds {
            exceeds: Exceeds::Depth,
            line,
        }
    }

    #[test]
    fn many_values_and_long_values_are_refused_at_their_line() {
        let flat = format!("route: [{}1]\n", "1,".repeat(MAX_VALUES));
        let e = check(&flat).unwrap_err();
        assert_eq!(e.exceeds, Exceeds::Values);
        assert_eq!(e.line, 1);
        let lines = "a: 1\n".repeat(MAX_VALUES);
        assert_eq!(check(&lines).unwrap_err().exceeds, Exceeds::Values);
        let fine = format!("route: [{}1]\n", "1,".repeat(MAX_VALUES / 4));
        assert!(check(&fine).is_ok());
        let long = "x".repeat(MAX_VALUE_BYTES + 1);
        for text in [
            format!("a: 1\nb: {long}\n"),
            format!("a: 1\nb: '{long}'\n"),
            format!("a: 1\nb: \"x\n{long}\"\n"),
            format!("a: 1\nb: [{long}]\n"),
        ] {
            let e = check(&text).unwrap_err();
            assert_eq!(e.exceeds, Exceeds::Length, "{}", &text[..20]);
            assert_eq!(e.line, if text.contains("\"x\n") { 3 } else { 2 });
        }
        let block = format!(
            "a: |\n{}b: 1\n",
            "  xxxxxxxxxxxxxxx\n".repeat(MAX_VALUE_BYTES / 8)
        );
        assert_eq!(check(&block).unwrap_err().exceeds, Exceeds::Length);
        // Many short values on one line each, under the bounds.
        let short = format!("a: [{}]\n", "abcdefgh, ".repeat(MAX_VALUE_BYTES));
        assert!(check(&short).is_ok());
        let msg = check(&flat).unwrap_err().to_string();
        assert!(msg.contains("more than 100000 values by line 1"), "{msg}");
    }

    #[test]
    fn real_files_pass_and_deep_ones_are_refused_at_their_line() {
        assert!(check(crate::DEFAULT_YAML).is_ok());
        let deep = format!("a:\n  b: {}{}\n", "[".repeat(70), "]".repeat(70));
        assert_eq!(check(&deep), Err(too_deep(2)));
        let shallow = format!("a: {}{}\n", "[".repeat(20), "]".repeat(20));
        assert!(check(&shallow).is_ok());
        let dashes = format!("{}x\n", "- ".repeat(70));
        assert_eq!(check(&dashes), Err(too_deep(1)));
        let mut indented = String::new();
        for i in 0..70 {
            indented.push_str(&format!("{}k{i}:\n", " ".repeat(i)));
        }
        assert!(check(&indented).is_err());
    }

    #[test]
    fn quotes_comments_and_block_scalars_are_not_counted() {
        let brackets = "[".repeat(100);
        for text in [
            format!("a: '{brackets}'\n"),
            format!("a: \"{brackets}\\\"\"\n"),
            format!("a: 1 # {brackets}\n"),
            format!("a: |\n  {brackets}\n  {brackets}\nb: 2\n"),
            format!("a: \"x\n  {brackets}\"\n"),
        ] {
            assert!(check(&text).is_ok(), "{text}");
        }
        // Levels close again: a long file of shallow steps is fine.
        let step = "- a:\n    b:\n      c: [1, {d: 2}]\n";
        assert!(check(&step.repeat(1000)).is_ok());
    }
}
