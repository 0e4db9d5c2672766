//! A linear pre-scan of a test-sequence file that refuses deep nesting
//! before the YAML parser sees it: the parser's time grows faster than the
//! file on deeply nested input (a 200 KB file of `[[[[…` took 23 s), and no
//! test sequence nests more than a handful of levels (see `examples/` and
//! upstream `polkadot/node/subsystem-bench/examples/*.yaml`).
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

/// Where a file first nests deeper than [`MAX_DEPTH`]: 1-based line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooDeep {
    /// The line at which the depth first exceeds the bound.
    pub line: usize,
}

/// Scans `text` once; `Err` at the first point deeper than [`MAX_DEPTH`].
pub fn check_depth(text: &str) -> Result<(), TooDeep> {
    let mut scan = Scan::default();
    for (i, line) in text.lines().enumerate() {
        scan.line(line).map_err(|()| TooDeep { line: i + 1 })?;
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
}

impl Scan {
    fn line(&mut self, line: &str) -> Result<(), ()> {
        let bytes = line.as_bytes();
        let indent = bytes.iter().take_while(|&&b| b == b' ').count();
        let blank = indent == bytes.len() || bytes[indent] == b'#';
        if let Some(opener) = self.block_scalar {
            if blank || indent > opener {
                return Ok(());
            }
            self.block_scalar = None;
        }
        if blank && self.quote.is_none() {
            return Ok(());
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
    fn rest(&mut self, bytes: &[u8], indent: usize) -> Result<(), ()> {
        let mut prev = b' ';
        let mut i = 0;
        while i < bytes.len() {
            let b = bytes[i];
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
                    }
                    b']' | b'}' => self.flow = self.flow.saturating_sub(1),
                    _ => {}
                }
            }
            prev = b;
            i += 1;
        }
        if self.quote.is_none() && self.flow == 0 && opens_block_scalar(bytes) {
            self.block_scalar = Some(indent);
        }
        Ok(())
    }

    fn depth(&self) -> usize {
        self.flow + self.indents.len()
    }

    fn check(&self) -> Result<(), ()> {
        if self.depth() > MAX_DEPTH {
            Err(())
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

    #[test]
    fn real_files_pass_and_deep_ones_are_refused_at_their_line() {
        assert!(check_depth(crate::DEFAULT_YAML).is_ok());
        let deep = format!("a:\n  b: {}{}\n", "[".repeat(70), "]".repeat(70));
        assert_eq!(check_depth(&deep), Err(TooDeep { line: 2 }));
        let shallow = format!("a: {}{}\n", "[".repeat(20), "]".repeat(20));
        assert!(check_depth(&shallow).is_ok());
        let dashes = format!("{}x\n", "- ".repeat(70));
        assert_eq!(check_depth(&dashes), Err(TooDeep { line: 1 }));
        let mut indented = String::new();
        for i in 0..70 {
            indented.push_str(&format!("{}k{i}:\n", " ".repeat(i)));
        }
        assert!(check_depth(&indented).is_err());
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
            assert!(check_depth(&text).is_ok(), "{text}");
        }
        // Levels close again: a long file of shallow steps is fine.
        let step = "- a:\n    b:\n      c: [1, {d: 2}]\n";
        assert!(check_depth(&step.repeat(1000)).is_ok());
    }
}
